import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import request from 'supertest';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { until } from '@nrp/testkit/src/until';
import { mintControllerArtifact } from '@nrp/contracts';
import { createLogger, loadConfig } from '@nrp/server';
import {
  DEV_PROVEN_L2_PARENT,
  deployDevL2Parent,
  l2ChainOn,
  startAnvil,
  startEnsChain,
  type AnvilNode,
  type DevStackContext,
  type EnsChain,
} from '@nrp/testkit';
import { configSchema } from '../src/config';
import { prepareDevStack } from '../dev/dev-stack';
import { createService } from '../src/service';

describe('mint-svc dev stack hook', () => {
  let chain: EnsChain;
  let l2: AnvilNode;
  let l2Registry: string;
  let provenL2Registry: string;
  let dataDir: string;

  beforeAll(async () => {
    chain = await startEnsChain();
    l2 = await startAnvil({ chainId: 84532 });
    const [owner] = chain.accounts;
    if (!owner) throw new Error('no anvil account 0');
    l2Registry = await deployDevL2Parent(chain.ens, l2, owner);
    provenL2Registry = await l2ChainOn(l2).deployRegistry(DEV_PROVEN_L2_PARENT, {
      owner: privateKeyToAccount(owner.privateKey as Hex),
    });
    dataDir = mkdtempSync(path.join(tmpdir(), 'mint-dev-'));
  });
  afterAll(async () => {
    await chain?.stop();
    await l2?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('deploys the controller, lists mint.eth for anyone, and the service it configures mints on-chain', async () => {
    const { contracts } = chain;
    const ctx: DevStackContext = {
      rpcUrl: chain.anvil.rpcUrl,
      chainId: chain.anvil.chainId,
      network: 'sepolia',
      l2: { rpcUrl: l2.rpcUrl, chainId: l2.chainId, network: 'base-sepolia' },
      contracts: { l2Registry, provenL2Registry, ...contracts },
      accounts: chain.accounts,
      services: {
        metadata: 'http://127.0.0.1:3001',
        mint: 'http://127.0.0.1:3002',
        offchain: '',
        resolver: '',
      },
      dataDir,
      env: {
        LOG_LEVEL: 'silent',
        SEPOLIA_RPC_URL: chain.anvil.rpcUrl,
        BASE_SEPOLIA_RPC_URL: l2.rpcUrl,
        SEPOLIA_ENS_REGISTRY: contracts.ensRegistry,
        SEPOLIA_NAME_WRAPPER: contracts.nameWrapper,
        SEPOLIA_PUBLIC_RESOLVER: contracts.publicResolver,
        SEPOLIA_REVERSE_REGISTRAR: contracts.reverseRegistrar,
        SEPOLIA_UNIVERSAL_RESOLVER: contracts.universalResolver,
      },
    };
    const contribution = await prepareDevStack(ctx);
    expect(contribution.names).toEqual({
      mintParent: 'mint.eth',
      l2Subname: 'demo.l2.eth',
      provenL2Subname: 'demo.proven.eth',
    });
    // The database variables every service reads (databaseEnvSchema of @nrp/db).
    expect(contribution.env?.PGLITE_DATA_DIR).toBe(path.join(ctx.dataDir, 'mint-svc', 'pglite'));
    // Bound sign-in messages name URLs under the address the stack serves mint-svc at.
    expect(contribution.env?.PUBLIC_BASE_URL).toBe(ctx.services.mint);
    const controllerAddress = contribution.contracts?.mintController ?? '';
    expect(await chain.ens.registryOwner('mint.eth')).toBe(chain.accounts[0]?.address);

    const config = loadConfig(configSchema, { ...ctx.env, ...contribution.env, PGLITE_DATA_DIR: '' });
    const service = await createService(config, createLogger('t', 'silent'));
    const provider = new JsonRpcProvider(chain.anvil.rpcUrl, undefined, { staticNetwork: true });
    try {
      expect((await request(service.app).get('/ready').expect(200)).body.checks['sepolia-controller']).toBe(
        'ok',
      );
      const minter = chain.accounts[5];
      if (!minter) throw new Error('no account 5');
      const query = {
        parentName: 'mint.eth',
        label: 'hello',
        minterAddress: minter.address,
        isTestnet: true,
      };
      const est = await request(service.app).get('/api/v1/mint/estimate').query(query).expect(200);
      expect(est.body).toMatchObject({ canMint: true, estimatedPriceEth: 0.001, estimatedFeeEth: 0.0001 });
      const res = await request(service.app).post('/api/v1/mint').send(query).expect(200);
      const c = res.body.content;
      const controller = new Contract(
        controllerAddress,
        mintControllerArtifact.abi,
        new Wallet(minter.privateKey, provider),
      );
      const tx = await controller
        .getFunction('mint')
        .send({ ...c, price: BigInt(c.price), fee: BigInt(c.fee) }, res.body.signature, [], '0x', {
          value: BigInt(c.price) + BigInt(c.fee),
        });
      await tx.wait();
      expect(await chain.ens.registryOwner('hello.mint.eth')).toBe(minter.address);
      // The stack's names index follows the dev chain: the new name is listed for its holder.
      await until(
        async () =>
          (
            await request(service.app)
              .get('/api/v1/names')
              .query({ network: 'sepolia', owner: minter.address })
          ).body.items?.[0]?.name === 'hello.mint.eth',
        'hello.mint.eth in the names index',
        30_000,
      );
      // l2.eth and proven.eth are listed on the L2: an estimate with only isTestnet finds each there, and the mint
      // answer names its own L2 controller and the chain.
      for (const [parentName, mintController] of [
        ['l2.eth', contribution.contracts?.l2MintController],
        [DEV_PROVEN_L2_PARENT, contribution.contracts?.provenL2MintController],
      ]) {
        const l2Query = { ...query, parentName };
        const l2Estimate = await request(service.app).get('/api/v1/mint/estimate').query(l2Query).expect(200);
        expect(l2Estimate.body).toMatchObject({ canMint: true, estimatedPriceEth: 0.001 });
        const l2Mint = await request(service.app).post('/api/v1/mint').send(l2Query).expect(200);
        expect(l2Mint.body).toMatchObject({ chainId: 84532, mintController });
      }
      expect(contribution.contracts?.provenL2MintController).not.toBe(
        contribution.contracts?.l2MintController,
      );
    } finally {
      for (const step of service.onShutdown) await step();
      provider.destroy();
    }
  });
});
