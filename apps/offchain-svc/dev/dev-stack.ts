import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { generateApiKey, hashApiKey } from '@nrp/auth';
import { deployContract, l2NameResolverArtifact, signedOffchainResolverArtifact } from '@nrp/contracts';
import { createOffchainClient, type CreateSubnameInput } from '@nrp/client';
import { labelhash, namehash } from '@nrp/ens';
import { DEV_L2_PARENT, type DevStackHook } from '@nrp/testkit/src/dev-stack';
import { ensNpmArtifacts, waitForReceipt } from '@nrp/testkit/src/ens-fixture';
import { API_KEY_PREFIX } from '../src/keys/api-keys';

/** Where a local webhook receiver listens in development (`npm start`), unless WEBHOOK_ALLOWED_ORIGINS says otherwise. */
export const DEV_WEBHOOK_ORIGINS = 'http://127.0.0.1:4000,http://localhost:4000';

export const DEV_PARENT = 'offchain.eth';
const ONE_YEAR = 365 * 24 * 3600;

interface DevSecrets {
  gatewaySignerKey: string;
  apiKey: string;
}

/** Keys survive restarts of `npm start` (the PGlite data does too), so a key copied from dev-stack.json stays valid. */
function loadOrCreateSecrets(dir: string): DevSecrets {
  const file = path.join(dir, 'dev-secrets.json');
  if (existsSync(file)) {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'gatewaySignerKey' in parsed &&
      'apiKey' in parsed &&
      typeof parsed.gatewaySignerKey === 'string' &&
      typeof parsed.apiKey === 'string'
    ) {
      return { gatewaySignerKey: parsed.gatewaySignerKey, apiKey: parsed.apiKey };
    }
  }
  const secrets: DevSecrets = {
    gatewaySignerKey: Wallet.createRandom().privateKey,
    apiKey: generateApiKey(API_KEY_PREFIX),
  };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

async function send(
  provider: JsonRpcProvider,
  contract: Contract,
  fn: string,
  args: unknown[],
): Promise<void> {
  const tx = await contract.getFunction(fn).send(...args);
  const receipt = await waitForReceipt(provider, tx.hash);
  if (receipt.status !== 1) throw new Error(`dev stack: ${fn} failed`);
}

/**
 * `npm start` for the offchain service: our SignedOffchainResolver (signer: the dev gateway key, URL: this service's
 * gateway; ENSIP-22, so a profile is one gateway request) as the resolver of offchain.eth (registered to anvil account 0), an API key valid for offchain.eth and
 * demo.eth (installed through BOOTSTRAP_API_KEY_HASH), and demo subnames created through the API. Name owners sign in
 * with messages for this service's host or the console's (`localhost:3000`), and their setup points at this resolver.
 * l2.eth gets an L2NameResolver (same signer) whose URL is this service's L2 gateway for the stack's L2Registry.
 */
export const prepareDevStack: DevStackHook = async (ctx) => {
  const dir = path.join(ctx.dataDir, 'offchain-svc');
  mkdirSync(dir, { recursive: true });
  const secrets = loadOrCreateSecrets(dir);
  const signer = new Wallet(secrets.gatewaySignerKey);
  const [owner, alice, bob] = ctx.accounts;
  if (!owner || !alice || !bob) throw new Error('dev stack: anvil accounts missing');
  const registry = ctx.contracts.ensRegistry;
  const baseRegistrar = ctx.contracts.baseRegistrar;
  if (!registry || !baseRegistrar)
    throw new Error('dev stack: ENS registry / base registrar address missing');

  const provider = new JsonRpcProvider(ctx.rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  let offchainResolver: string;
  let l2Resolver: string;
  try {
    const deployer = new NonceManager(new Wallet(owner.privateKey, provider));
    const gatewayUrl = `${ctx.services.offchain}/api/v1/gateway/{sender}/{data}.json`;
    const deployed = await deployContract(deployer, signedOffchainResolverArtifact, [
      gatewayUrl,
      [signer.address],
    ]);
    offchainResolver = await deployed.getAddress();
    const registrar = new Contract(baseRegistrar, ensNpmArtifacts.baseRegistrar.abi, deployer);
    const tokenId = BigInt(labelhash('offchain'));
    // Idempotent on a chain that already has it (the stack normally starts a fresh chain).
    if (await registrar.getFunction('available').staticCall(tokenId)) {
      await send(provider, registrar, 'register', [tokenId, owner.address, ONE_YEAR]);
    }
    const ens = new Contract(registry, ensNpmArtifacts.ensRegistry.abi, deployer);
    await send(provider, ens, 'setResolver', [namehash(DEV_PARENT), offchainResolver]);

    // l2.eth resolves on L1 through an L2NameResolver whose URL names the L2 and the registry this gateway reads.
    const l2Registry = ctx.contracts.l2Registry;
    if (!l2Registry) throw new Error('dev stack: the L2 registry address is missing');
    const l2GatewayUrl = `${ctx.services.offchain}/api/v1/gateway/l2/${ctx.l2.network}/${l2Registry}/{sender}/{data}.json`;
    const l2Deployed = await deployContract(deployer, l2NameResolverArtifact, [
      l2GatewayUrl,
      [signer.address],
      ctx.l2.chainId,
      l2Registry,
    ]);
    l2Resolver = await l2Deployed.getAddress();
    await send(provider, ens, 'setResolver', [namehash(DEV_L2_PARENT), l2Resolver]);
  } finally {
    provider.destroy();
  }

  return {
    env: {
      PGLITE_DATA_DIR: path.join(dir, 'pglite'),
      GATEWAY_SIGNER_KEY: secrets.gatewaySignerKey,
      BOOTSTRAP_API_KEY_HASH: hashApiKey(secrets.apiKey),
      BOOTSTRAP_API_KEY_PARENTS: `${DEV_PARENT},demo.eth`,
      // A webhook receiver on this machine (plain http, loopback) passes the URL policy at these origins.
      WEBHOOK_ALLOWED_ORIGINS: process.env.WEBHOOK_ALLOWED_ORIGINS ?? DEV_WEBHOOK_ORIGINS,
      // Name owners point their names at this resolver (GET /api/v1/parents/{name}/setup) and sign in with messages
      // for this service's own host or for the console's (localhost:3000).
      SEPOLIA_OFFCHAIN_RESOLVER: offchainResolver,
      PUBLIC_BASE_URL: ctx.services.offchain,
      SIWE_DOMAINS: [
        ...new Set([
          new URL(ctx.services.offchain).host,
          `localhost:${new URL(ctx.services.offchain).port}`,
          'localhost:3000',
        ]),
      ].join(','),
    },
    contracts: { offchainResolver, l2Resolver },
    names: { offchainParent: DEV_PARENT },
    offchainApiKey: secrets.apiKey,
    afterStart: async () => {
      const client = createOffchainClient({ baseUrl: ctx.services.offchain });
      const demoSubnames: CreateSubnameInput[] = [
        {
          parentName: DEV_PARENT,
          label: 'alice',
          owner: alice.address,
          texts: [
            { key: 'name', value: 'Alice (offchain)' },
            { key: 'description', value: 'An offchain subname served through CCIP-Read' },
            { key: 'url', value: 'https://example.com/alice' },
            { key: 'com.github', value: 'alice' },
          ],
          addresses: [
            { coin: 60, value: alice.address },
            { coin: 0, value: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' },
          ],
          metadata: [{ key: 'tier', value: 'gold' }],
          contenthash: 'ipfs://QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4',
          ttl: 300,
        },
        {
          parentName: DEV_PARENT,
          label: 'bob',
          owner: bob.address,
          texts: [{ key: 'name', value: 'Bob (offchain)' }],
          addresses: [{ coin: 60, value: bob.address }],
          metadata: [{ key: 'tier', value: 'silver' }],
        },
        {
          parentName: DEV_PARENT,
          label: 'team',
          owner: owner.address,
          texts: [{ key: 'description', value: 'Owned by the demo account' }],
          addresses: [{ coin: 60, value: owner.address }],
          metadata: [{ key: 'tier', value: 'gold' }],
        },
      ];
      for (const subname of demoSubnames) await client.createOrUpdateSubname(subname, secrets.apiKey);
    },
  };
};
