import { AbiCoder, Wallet, ZeroAddress, getAddress, type JsonRpcPayload, type JsonRpcResult } from 'ethers';
import { namehash, type Hex } from '@nrp/ens';
// Direct module imports: the testkit index also pulls in the S3/database/Redis helpers, not needed here.
import { startEnsChain, type EnsChain } from '@nrp/testkit/src/ens-fixture';
import { startTestGateway, type TestGateway } from '@nrp/testkit/src/test-gateway';
import {
  ChainProvider,
  UpstreamError,
  decodeAddrResult,
  decodeContenthashResult,
  decodeTextResult,
  encodeAddrCall,
  encodeContenthashCall,
  encodeTextCall,
  getOwner,
  getRegistryOwner,
  getResolverAddress,
  networksFromEnv,
  networksEnvSchema,
  resolverInterface,
  universalResolve,
  universalReverse,
  type NetworkConfig,
} from '../src';

const abi = AbiCoder.defaultAbiCoder();
const CONTENTHASH = '0xe3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f';

/** Counts the JSON-RPC methods the provider sends, to prove "one eth_call". */
class CountingProvider extends ChainProvider {
  readonly methods: string[] = [];
  override _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    for (const p of Array.isArray(payload) ? payload : [payload]) this.methods.push(p.method);
    return super._send(payload);
  }
}

const text = (name: string, key: string): Hex =>
  resolverInterface.encodeFunctionData('text', [namehash(name), key]) as Hex;
const addr = (name: string): Hex =>
  resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(name)]) as Hex;
const contenthash = (name: string): Hex =>
  resolverInterface.encodeFunctionData('contenthash', [namehash(name)]) as Hex;

describe('ENS reads against anvil with the real ENS contracts', () => {
  let chain: EnsChain;
  let gateway: TestGateway;
  let config: NetworkConfig;
  let provider: CountingProvider;
  let ur: string;
  const gatewaySigner = Wallet.createRandom();
  let offchainResolver: string;

  beforeAll(async () => {
    chain = await startEnsChain();
    const { ens, contracts } = chain;
    const [, alice, bob, carol] = chain.accounts;
    if (!alice || !bob || !carol) throw new Error('accounts');
    gateway = await startTestGateway({
      signerKey: gatewaySigner.privateKey,
      records: {
        'sub.offchain.eth': { addr: carol.address, texts: { avatar: 'https://img.example/sub.png' } },
        'carol.offchain.eth': { addr: carol.address },
      },
    });
    config = {
      ...networksFromEnv(
        networksEnvSchema.parse({
          SEPOLIA_RPC_URL: chain.anvil.rpcUrl,
          SEPOLIA_ENS_REGISTRY: contracts.ensRegistry,
          SEPOLIA_NAME_WRAPPER: contracts.nameWrapper,
          SEPOLIA_PUBLIC_RESOLVER: contracts.publicResolver,
          SEPOLIA_REVERSE_REGISTRAR: contracts.reverseRegistrar,
          SEPOLIA_UNIVERSAL_RESOLVER: contracts.universalResolver,
          RPC_TIMEOUT_MS: '3000',
          // the test gateway is plain http on 127.0.0.1: refused unless allow-listed
          CCIP_READ_ALLOWED_ORIGINS: `http://127.0.0.1:${gateway.port}`,
        }),
      ).sepolia,
    };
    provider = new CountingProvider(config);
    ur = contracts.universalResolver;

    // onchain: alice.eth on the public resolver
    await ens.registerEthName('alice', alice.address);
    await ens.setText('alice.eth', 'com.github', 'alice-gh');
    await ens.setAddr('alice.eth', alice.address);
    await ens.setContenthash('alice.eth', CONTENTHASH);
    await ens.setReverseName(alice.address, 'alice.eth');
    // bob claims alice.eth as primary name: must not verify
    await ens.setReverseName(bob.address, 'alice.eth');
    // no resolver anywhere
    await ens.registerEthName('bare', alice.address, { resolver: null });
    // wildcard: ENS's OffchainResolver on offchain.eth, answered by the test gateway
    offchainResolver = await ens.deployOffchainResolver(gateway.url, [gatewaySigner.address]);
    await ens.registerEthName('offchain', bob.address, { resolver: offchainResolver });
    // carol's primary name is an offchain subname: forward check goes through CCIP-Read
    await ens.setReverseName(carol.address, 'carol.offchain.eth');
  });

  afterAll(async () => {
    provider?.destroy();
    await gateway?.stop();
    await chain?.stop();
  });

  afterEach(() => gateway.setFault(null));

  it('resolves text + addr + contenthash of a public-resolver name in ONE eth_call (multicall)', async () => {
    const [, alice] = chain.accounts;
    provider.methods.length = 0;
    const { resolver, results } = await universalResolve(provider, ur, 'alice.eth', [
      text('alice.eth', 'com.github'),
      addr('alice.eth'),
      contenthash('alice.eth'),
      text('alice.eth', 'missing'),
    ]);
    expect(provider.methods).toEqual(['eth_call']); // and no eth_chainId: static network
    expect(resolver).toBe(chain.contracts.publicResolver);
    expect(results).toHaveLength(4);
    expect(abi.decode(['string'], results[0] ?? '0x')[0]).toBe('alice-gh');
    expect(abi.decode(['address'], results[1] ?? '0x')[0]).toBe(alice?.address);
    expect(abi.decode(['bytes'], results[2] ?? '0x')[0]).toBe(CONTENTHASH);
    expect(abi.decode(['string'], results[3] ?? '0x')[0]).toBe('');
  });

  it('record helpers encode calls and decode results (unset: null)', async () => {
    const [, alice, , carol] = chain.accounts;
    const onchain = await universalResolve(provider, ur, 'alice.eth', [
      encodeTextCall('alice.eth', 'com.github'),
      encodeAddrCall('alice.eth'),
      encodeContenthashCall('alice.eth'),
      encodeTextCall('alice.eth', 'missing'),
      encodeAddrCall('alice.eth', 0),
    ]);
    expect(decodeTextResult(onchain.results[0] ?? null)).toBe('alice-gh');
    expect(decodeAddrResult(onchain.results[1] ?? null)).toBe(alice?.address.toLowerCase());
    expect(decodeContenthashResult(onchain.results[2] ?? null)).toBe(CONTENTHASH);
    expect(decodeTextResult(onchain.results[3] ?? null)).toBeNull();
    expect(decodeAddrResult(onchain.results[4] ?? null)).toBeNull();
    const offchain = await universalResolve(provider, ur, 'sub.offchain.eth', [
      encodeAddrCall('sub.offchain.eth'),
      encodeContenthashCall('sub.offchain.eth'),
    ]);
    expect(decodeAddrResult(offchain.results[0] ?? null)).toBe(carol?.address.toLowerCase());
    expect(decodeContenthashResult(offchain.results[1] ?? null)).toBeNull();
    expect(() => decodeTextResult('0x1234')).toThrow(UpstreamError);
  });

  it('passes a single call through without multicall', async () => {
    const { resolver, results } = await universalResolve(provider, ur, 'alice.eth', [
      text('alice.eth', 'com.github'),
    ]);
    expect(resolver).toBe(chain.contracts.publicResolver);
    expect(abi.decode(['string'], results[0] ?? '0x')[0]).toBe('alice-gh');
  });

  it('a sub-call the resolver does not implement yields null, the others still resolve', async () => {
    const unknownCall = ('0xdeadbeef' + namehash('alice.eth').slice(2)) as Hex;
    const { results } = await universalResolve(provider, ur, 'alice.eth', [
      unknownCall,
      text('alice.eth', 'com.github'),
    ]);
    expect(results[0]).toBeNull();
    expect(abi.decode(['string'], results[1] ?? '0x')[0]).toBe('alice-gh');
  });

  it('a name without resolver is not an error: resolver null, results null', async () => {
    expect(
      await universalResolve(provider, ur, 'bare.eth', [text('bare.eth', 'a'), addr('bare.eth')]),
    ).toEqual({
      resolver: null,
      results: [null, null],
    });
    expect(await universalResolve(provider, ur, 'sub.bare.eth', [addr('sub.bare.eth')])).toEqual({
      resolver: null,
      results: [null],
    });
    // alice.eth's public resolver is not a wildcard resolver: its subnames have none
    expect((await universalResolve(provider, ur, 'x.alice.eth', [addr('x.alice.eth')])).resolver).toBeNull();
  });

  it('resolves a wildcard subname through the OffchainResolver on the parent, with CCIP-Read', async () => {
    const [, , , carol] = chain.accounts;
    const before = gateway.requestCount();
    const { resolver, results } = await universalResolve(provider, ur, 'sub.offchain.eth', [
      addr('sub.offchain.eth'),
      text('sub.offchain.eth', 'avatar'),
      text('sub.offchain.eth', 'url'),
    ]);
    expect(gateway.requestCount()).toBe(before + 1);
    expect(resolver).toBe(offchainResolver);
    expect(abi.decode(['address'], results[0] ?? '0x')[0]).toBe(carol?.address);
    expect(abi.decode(['string'], results[1] ?? '0x')[0]).toBe('https://img.example/sub.png');
    expect(abi.decode(['string'], results[2] ?? '0x')[0]).toBe('');
    // single call
    const single = await universalResolve(provider, ur, 'sub.offchain.eth', [
      text('sub.offchain.eth', 'avatar'),
    ]);
    expect(abi.decode(['string'], single.results[0] ?? '0x')[0]).toBe('https://img.example/sub.png');
  });

  it.each(['http-500', 'garbage', 'bad-signature'] as const)(
    'gateway fault %s is an UpstreamError',
    async (fault) => {
      gateway.setFault(fault);
      const err: unknown = await universalResolve(provider, ur, 'sub.offchain.eth', [
        addr('sub.offchain.eth'),
      ]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect((err as UpstreamError).code).toBe('UPSTREAM_ERROR');
      expect((err as UpstreamError).upstreamMessage).not.toBe('');
      if (fault === 'http-500') expect((err as UpstreamError).upstreamMessage).toMatch(/test gateway fault/);
    },
  );

  it('a gateway that never answers times out as an UpstreamError', async () => {
    gateway.setFault('hang');
    const fast = new ChainProvider({ ...config, rpcTimeoutMs: 300 });
    try {
      const err: unknown = await universalResolve(fast, ur, 'sub.offchain.eth', [
        addr('sub.offchain.eth'),
      ]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect((err as UpstreamError).upstreamCode).toBe('TIMEOUT');
    } finally {
      fast.destroy();
    }
  });

  it('an unreachable RPC node is an UpstreamError', async () => {
    const dead = new ChainProvider({ ...config, rpcUrl: 'http://127.0.0.1:9', rpcTimeoutMs: 1000 });
    try {
      await expect(universalResolve(dead, ur, 'alice.eth', [addr('alice.eth')])).rejects.toBeInstanceOf(
        UpstreamError,
      );
      await expect(getRegistryOwner(dead, config.ens.ensRegistry, 'alice.eth')).rejects.toBeInstanceOf(
        UpstreamError,
      );
    } finally {
      dead.destroy();
    }
  });

  it('reverse: verified primary name, mismatching one, none, and one verified through CCIP-Read', async () => {
    const [, alice, bob, carol, dave] = chain.accounts;
    if (!alice || !bob || !carol || !dave) throw new Error('accounts');
    expect(await universalReverse(provider, ur, alice.address)).toEqual({
      name: 'alice.eth',
      resolver: chain.contracts.publicResolver,
      reverseResolver: chain.contracts.publicResolver,
    });
    expect(await universalReverse(provider, ur, bob.address)).toEqual({
      name: null,
      resolver: null,
      reverseResolver: null,
      unverifiedName: 'alice.eth',
    });
    expect(await universalReverse(provider, ur, dave.address)).toMatchObject({ name: null, resolver: null });
    expect(await universalReverse(provider, ur, carol.address)).toEqual({
      name: 'carol.offchain.eth',
      resolver: offchainResolver,
      reverseResolver: chain.contracts.publicResolver,
    });
  });

  it('owner: registry owner, NameWrapper owner when wrapped, null when unowned', async () => {
    const [, alice, bob, carol] = chain.accounts;
    if (!alice || !bob || !carol) throw new Error('accounts');
    const { ens } = chain;
    await ens.registerEthName('wrapped', alice.address);
    expect(await getOwner(provider, config.ens, 'wrapped.eth')).toBe(alice.address);
    await ens.wrapName('wrapped.eth', bob.address);
    expect(await getRegistryOwner(provider, config.ens.ensRegistry, 'wrapped.eth')).toBe(
      getAddress(chain.contracts.nameWrapper),
    );
    expect(await getOwner(provider, config.ens, 'wrapped.eth')).toBe(bob.address);
    await ens.createSubname('wrapped.eth', 'sub', carol.address);
    expect(await getOwner(provider, config.ens, 'sub.wrapped.eth')).toBe(carol.address);
    expect(await getOwner(provider, config.ens, 'nobody.eth')).toBeNull();
  });

  it('getResolverAddress follows ENSIP-10: exact, wildcard parent only if extended, else null', async () => {
    const reg = config.ens.ensRegistry;
    expect(await getResolverAddress(provider, reg, 'alice.eth')).toBe(chain.contracts.publicResolver);
    expect(await getResolverAddress(provider, reg, 'deep.sub.offchain.eth')).toBe(offchainResolver);
    expect(await getResolverAddress(provider, reg, 'x.alice.eth')).toBeNull();
    expect(await getResolverAddress(provider, reg, 'bare.eth')).toBeNull();
    expect(ZeroAddress).not.toBe(offchainResolver);
  });
});
