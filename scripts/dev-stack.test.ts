/**
 * `npm start` as a newcomer runs it: a fresh data directory, the whole stack in one process, the README's curl
 * examples answered, and Ctrl-C stopping everything, anvil included.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';
import { addEnsContracts, createEnsPublicClient } from '@ensdomains/ensjs';
import { getExpiry, getName, getOwner, getRecords, getWrapperData } from '@ensdomains/ensjs/public';
import { Contract, JsonRpcProvider, namehash } from 'ethers';
import { createPublicClient, getAddress, http, zeroAddress, type Address, type PublicClient } from 'viem';
import { getEnsAddress, getEnsAvatar, getEnsName, getEnsResolver, getEnsText } from 'viem/actions';
import { sepolia } from 'viem/chains';
import { DEFAULT_EVM_COIN_TYPE } from '@nrp/ens';
import {
  BASE_COIN_TYPE,
  startDevStackProcess,
  until,
  type DevStackFile,
  type DevStackPorts,
  type DevStackProcess,
} from '@nrp/testkit';

const root = path.resolve(__dirname, '..');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Each README shell block that calls curl, whole, continuation lines joined. Blocks that install or deploy (npm,
 * docker, kubectl) are not examples to run here.
 */
function readmeExampleBlocks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)]
    .map((block) => block[1] ?? '')
    .filter((block) => /^curl /m.test(block) && !/^(npm|docker|kubectl) /m.test(block));
}

/**
 * Points a README block at this test's stack and makes each curl fail on an HTTP error, except those after a
 * comment announcing error answers (`# 400s`), which show failures on purpose.
 */
function adaptExample(block: string, ports: Record<string, number | undefined>, stackFile: string): string {
  let expectErrors = false;
  return block
    .replace(
      /(localhost|127\.0\.0\.1):(300[1-4]|854[56])/g,
      (_m, host: string, port: string) => `${host}:${ports[port]}`,
    )
    .replaceAll('./.data/dev-stack.json', stackFile)
    .replaceAll('.data/dev-stack.json', stackFile)
    .split('\n')
    .map((line) => {
      if (/^#\s*4\d\d/.test(line)) expectErrors = true;
      return !expectErrors && line.startsWith('curl ')
        ? line.replace(/^curl /, 'curl --fail-with-body -sS ')
        : line;
    })
    .join('\n');
}

/** Runs in `cwd` (files the examples write stay out of the repository); `node -e` examples find its packages. */
function run(command: string, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, NODE_PATH: path.join(root, 'node_modules') };
    execFile(
      'bash',
      ['-e', '-o', 'pipefail', '-c', command],
      { cwd, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('npm start (the dev stack)', () => {
  let devStack: DevStackProcess;
  let stack: DevStackFile;
  let child: ChildProcess;
  let ports: DevStackPorts;
  let dataDir: string;

  beforeAll(async () => {
    devStack = await startDevStackProcess();
    ({ stack, child, ports, dataDir } = devStack);
  }, 210_000);

  afterAll(async () => {
    // A test that failed before Ctrl-C: stop the stack as Ctrl-C does, so it stops its anvil.
    await devStack?.stop();
  });

  it('prints a summary and writes dev-stack.json in the documented shape', () => {
    expect(devStack.output()).toContain('Name Records Platform is running');
    expect(stack.services).toEqual({
      metadata: `http://127.0.0.1:${ports.METADATA_PORT}`,
      mint: `http://127.0.0.1:${ports.MINT_PORT}`,
      offchain: `http://127.0.0.1:${ports.OFFCHAIN_PORT}`,
      resolver: `http://127.0.0.1:${ports.RESOLVER_PORT}`,
    });
    expect(stack.chains).toEqual({
      sepolia: { network: 'sepolia', chainId: 11155111, rpcUrl: `http://127.0.0.1:${ports.ANVIL_PORT}` },
      'base-sepolia': {
        network: 'base-sepolia',
        chainId: 84532,
        rpcUrl: `http://127.0.0.1:${ports.L2_ANVIL_PORT}`,
      },
    });
    for (const contract of [
      'offchainResolver',
      'mintController',
      'l2Registry',
      'l2MintController',
      'l2Resolver',
    ]) {
      expect(stack.contracts[contract]).toMatch(/^0x[0-9a-fA-F]{40}$/);
    }
    // ENS sits where clients configured for Sepolia look (ethers' registry; ensjs's table; viem's sepolia chain)
    const known = addEnsContracts(sepolia).contracts;
    expect(stack.contracts).toMatchObject({
      ensRegistry: '0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e',
      publicResolver: known.ensPublicResolver.address,
      reverseRegistrar: known.ensReverseRegistrar.address,
      nameWrapper: known.ensNameWrapper.address,
      baseRegistrar: known.ensBaseRegistrarImplementation.address,
      universalResolver: getAddress(sepolia.contracts.ensUniversalResolver.address),
      multicall3: getAddress(sepolia.contracts.multicall3.address),
    });
    expect(stack.names).toMatchObject({
      onchain: 'demo.eth',
      offchainParent: 'offchain.eth',
      mintParent: 'mint.eth',
      l2Parent: 'l2.eth',
    });
    expect(stack.offchainApiKey).toEqual(expect.any(String));
    expect(stack.accounts).toHaveLength(10);
    expect(stack.accounts[0]).toEqual({
      address: expect.any(String),
      privateKey: expect.stringMatching(/^0x/),
    });
  });

  it('demo.eth belongs to the first account, with records and its reverse record; the last account has none', async () => {
    const provider = new JsonRpcProvider(stack.chains.sepolia.rpcUrl, undefined, { staticNetwork: true });
    try {
      const registry = new Contract(
        stack.contracts.ensRegistry ?? '',
        [
          'function owner(bytes32) view returns (address)',
          'function resolver(bytes32) view returns (address)',
        ],
        provider,
      );
      const resolver = new Contract(
        stack.contracts.publicResolver ?? '',
        [
          'function text(bytes32,string) view returns (string)',
          'function addr(bytes32) view returns (address)',
          'function name(bytes32) view returns (string)',
        ],
        provider,
      );
      const [first] = stack.accounts;
      const last = stack.accounts[stack.accounts.length - 1];
      const node = namehash('demo.eth');
      expect(await registry.getFunction('owner')(node)).toBe(first?.address);
      expect(await registry.getFunction('resolver')(node)).toBe(stack.contracts.publicResolver);
      for (const key of ['description', 'url', 'com.twitter']) {
        expect(await resolver.getFunction('text')(node, key)).not.toBe('');
      }
      expect(await resolver.getFunction('addr')(node)).toBe(first?.address);
      const reverseNode = (address: string) => namehash(`${address.slice(2).toLowerCase()}.addr.reverse`);
      expect(await resolver.getFunction('name')(reverseNode(first?.address ?? ''))).toBe('demo.eth');
      expect(await registry.getFunction('resolver')(reverseNode(last?.address ?? ''))).toBe(
        '0x0000000000000000000000000000000000000000',
      );
    } finally {
      provider.destroy();
    }
  });

  it('answers the curl examples of the READMEs', async () => {
    const readmes = [
      'README.md',
      'apps/metadata-svc/README.md',
      'apps/mint-svc/README.md',
      'apps/offchain-svc/README.md',
      'apps/resolver-svc/README.md',
    ];
    const byPort: Record<string, number | undefined> = {
      '3001': ports.METADATA_PORT,
      '3002': ports.MINT_PORT,
      '3003': ports.OFFCHAIN_PORT,
      '3004': ports.RESOLVER_PORT,
      '8545': ports.ANVIL_PORT,
      '8546': ports.L2_ANVIL_PORT,
    };
    const stackFile = path.join(dataDir, 'dev-stack.json');
    for (const file of readmes) {
      const blocks = readmeExampleBlocks(path.join(root, file));
      if (blocks.length === 0) throw new Error(`${file} has no curl examples`);
      for (const block of blocks) {
        const result = await run(adaptExample(block, byPort, stackFile), dataDir);
        if (result.code !== 0)
          throw new Error(`${file} example failed (exit ${result.code}):\n${block}\n${result.output}`);
      }
    }
  }, 120_000);

  /**
   * The clients frontends use, unchanged and configured for Sepolia (viem's `sepolia`, ensjs's
   * `addEnsContracts(sepolia)`, ethers' own sepolia network), with only `npm start`'s RPC URL: what they read must be
   * what resolver-svc (and the metadata service's token metadata) answers, for an on-chain, a wrapped, an offchain
   * and an unknown name, and for primary names by coin type.
   */
  describe('viem, ensjs and ethers agree with our services', () => {
    const NAMES = ['demo.eth', 'wrapped.eth', 'alice.offchain.eth', 'nobody-here.eth'];
    const TEXT_KEYS = ['avatar', 'description', 'name', 'url', 'com.github'];
    let viem: PublicClient;
    let ethers: JsonRpcProvider;
    const resolverGet = async (pathAndQuery: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`${stack.services.resolver}${pathAndQuery}`);
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    const profileOf = async (name: string) =>
      (await resolverGet(
        `/ens/v2/profile/${name}?texts=${TEXT_KEYS.join(',')}&addresses=eth,base,btc&noCache=true`,
      )) as {
        texts: Array<{ key: string; value: string }>;
        addresses: Array<{ chain: string; value: string }>;
        resolver?: string;
      };
    // resolver-svc lists every requested record, "" when unset; the clients answer null or leave it out.
    const textOf = (p: Awaited<ReturnType<typeof profileOf>>, key: string) =>
      p.texts.find((t) => t.key === key)?.value || null;
    const addressOf = (p: Awaited<ReturnType<typeof profileOf>>, chain: string) =>
      p.addresses.find((a) => a.chain === chain)?.value || null;
    const setRecords = <T extends { value: string }>(records: T[], key: (r: T) => string) =>
      Object.fromEntries(records.filter((r) => r.value !== '').map((r) => [key(r), r.value]));

    beforeAll(() => {
      viem = createPublicClient({ chain: sepolia, transport: http(stack.chains.sepolia.rpcUrl) });
      ethers = new JsonRpcProvider(stack.chains.sepolia.rpcUrl);
    });

    afterAll(() => ethers?.destroy());

    it.each(NAMES)('%s: addresses, texts, avatar and resolver (viem)', async (name) => {
      const profile = await profileOf(name);
      expect(await getEnsAddress(viem, { name })).toBe(addressOf(profile, 'eth'));
      // viem answers other coin types as raw lowercase hex
      expect(
        (await getEnsAddress(viem, { name, coinType: BigInt(BASE_COIN_TYPE) }))?.toLowerCase() ?? null,
      ).toBe(addressOf(profile, 'base')?.toLowerCase() ?? null);
      for (const key of TEXT_KEYS) expect(await getEnsText(viem, { name, key })).toBe(textOf(profile, key));
      // ENSIP-12: a data: URI or an https/http image URL is the avatar itself (viem checks the URL serves an image)
      expect(await getEnsAvatar(viem, { name })).toBe(textOf(profile, 'avatar'));
      const resolver = await getEnsResolver(viem, { name });
      expect(resolver === zeroAddress ? undefined : resolver).toBe(profile.resolver);
    });

    it.each(NAMES)('%s: records (ensjs getRecords)', async (name) => {
      const profile = await profileOf(name);
      const records = await getRecords(ensjs(), { name, texts: TEXT_KEYS, coins: ['eth', 'base', 'btc'] });
      expect(setRecords(records.texts, (t) => t.key)).toEqual(setRecords(profile.texts, (t) => t.key));
      expect(setRecords(records.coins, (c) => c.name)).toEqual(setRecords(profile.addresses, (a) => a.chain));
      expect(records.resolverAddress === zeroAddress ? undefined : records.resolverAddress).toBe(
        profile.resolver,
      );
    });

    it.each(NAMES)('%s: address, text and resolver (ethers)', async (name) => {
      const profile = await profileOf(name);
      if (!profile.resolver) {
        // ethers 6 asks Sepolia's Universal Resolver for the resolver (requireResolver) and lets its error through
        await expect(ethers.resolveName(name)).rejects.toMatchObject({ reason: 'ResolverNotFound(bytes)' });
        return;
      }
      expect(await ethers.resolveName(name)).toBe(addressOf(profile, 'eth'));
      const resolver = await ethers.getResolver(name);
      expect(resolver?.address).toBe(profile.resolver);
      if (resolver)
        expect((await resolver.getText('description')) || null).toBe(textOf(profile, 'description'));
    });

    it('primary names by coin type: Ethereum, Base (ENSIP-19 default fallback) and none', async () => {
      const [owner] = stack.accounts;
      const last = stack.accounts[stack.accounts.length - 1];
      const reverse = async (address: string, query = '') =>
        (await resolverGet(`/ens/v2/reverse/${address}/profile?noCache=true${query}`)).name as string | null;
      for (const [address, coinType, query] of [
        [owner?.address ?? '', undefined, ''],
        [owner?.address ?? '', BASE_COIN_TYPE, '&chain=base'],
        [owner?.address ?? '', DEFAULT_EVM_COIN_TYPE, `&coinType=${DEFAULT_EVM_COIN_TYPE}`],
        [last?.address ?? '', undefined, ''],
        [last?.address ?? '', BASE_COIN_TYPE, '&chain=base'],
      ] as const) {
        const expected = await reverse(address, query);
        const viaViem = await getEnsName(viem, {
          address: address as Address,
          ...(coinType === undefined ? {} : { coinType: BigInt(coinType) }),
        });
        expect(viaViem).toBe(expected);
        const viaEnsjs = await getName(ensjs(), {
          address: address as Address,
          ...(coinType === undefined ? {} : { coinType }),
        });
        expect(viaEnsjs?.name ?? null).toBe(expected);
        if (coinType === undefined) expect(await ethers.lookupAddress(address)).toBe(expected);
      }
      expect(await reverse(owner?.address ?? '')).toBe('demo.eth');
      expect(await reverse(owner?.address ?? '', '&chain=base')).toBe('demo.eth');
      // The reverse profile links the avatar to metadata-svc, which serves the data: URI record as an image.
      const profile = await resolverGet(`/ens/v2/reverse/${owner?.address ?? ''}/profile`);
      expect(profile.avatarUrl).toBe(`${stack.services.metadata}/sepolia/avatar/demo.eth`);
      const avatar = await fetch(String(profile.avatarUrl));
      expect([avatar.status, avatar.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
      expect(await reverse(last?.address ?? '')).toBeNull();
    });

    it('owner, expiry and wrapper data (ensjs, through Multicall3) agree with the chain and token metadata', async () => {
      const [owner] = stack.accounts;
      const demo = await getOwner(ensjs(), { name: 'demo.eth' });
      expect(demo?.owner).toBe(owner?.address);
      expect(demo?.ownershipLevel).toBe('registrar');
      const wrapped = await getOwner(ensjs(), { name: 'wrapped.eth' });
      expect(wrapped?.owner).toBe(owner?.address);
      expect(wrapped?.ownershipLevel).toBe('nameWrapper');
      const expiry = await getExpiry(ensjs(), { name: 'demo.eth' });
      expect(expiry?.status).toBe('active');
      expect(Number(expiry?.expiry.value)).toBeGreaterThan(Date.now() / 1000 + 300 * 24 * 3600);
      const data = await getWrapperData(ensjs(), { name: 'wrapped.eth' });
      expect(data?.owner).toBe(owner?.address);
      const tokenId = BigInt(namehash('wrapped.eth')).toString();
      const res = await fetch(
        `${stack.services.metadata}/metadata/network/${stack.chains.sepolia.chainId}/token/${tokenId}`,
      );
      expect(res.status).toBe(200);
      const metadata = (await res.json()) as { attributes: Array<{ trait_type: string; value: unknown }> };
      const fuses = metadata.attributes.find((a) => a.trait_type === 'Namewrapper Fuse States')?.value as {
        child: Record<string, boolean>;
        parent: Record<string, boolean>;
      };
      expect(fuses.child.CANNOT_UNWRAP).toBe(data?.fuses.child.CANNOT_UNWRAP);
      expect(fuses.parent.PARENT_CANNOT_CONTROL).toBe(data?.fuses.parent.PARENT_CANNOT_CONTROL);
    });

    function ensjs() {
      return createEnsPublicClient({
        chain: addEnsContracts(sepolia),
        transport: http(stack.chains.sepolia.rpcUrl),
      });
    }
  });

  it('Ctrl-C stops the services and anvil', async () => {
    child.kill('SIGINT');
    await until(() => child.exitCode !== null, 'the dev stack to exit', 30_000);
    expect(child.exitCode).toBe(0);
    for (const port of Object.values(ports)) expect(await portOpen(port)).toBe(false);
  }, 40_000);
});
