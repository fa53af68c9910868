/**
 * Our UniversalResolver, SignedOffchainResolver, ReverseNameRegistrar and Multicall3 on anvil with the real ENS npm
 * artifacts, read with viem (what wagmi uses): the published selectors and errors, ENSIP-10 resolver lookup, records
 * a resolver does not implement, ENSIP-22 (one gateway request per profile) against ENSIP-21 batches (one per record),
 * and ENSIP-19 reverse resolution per coin type.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  concat,
  createPublicClient,
  decodeAbiParameters,
  decodeFunctionResult,
  encodeFunctionData,
  http,
  keccak256,
  parseAbi,
  parseAbiParameters,
  stringToHex,
  toFunctionSelector,
  zeroAddress,
  zeroHash,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { Wallet } from 'ethers';
import { DEFAULT_EVM_COIN_TYPE, dnsEncode, labelhash, namehash } from '@nrp/ens';
import {
  BASE_COIN_TYPE,
  LOCAL_BATCH_GATEWAY,
  startEnsChain,
  startTestGateway,
  type EnsChain,
  type TestGateway,
} from '@nrp/testkit';
import {
  MULTICALL3_ADDRESS,
  deployContract,
  foreignLookupResolverTestDoubleArtifact,
  multicall3Artifact,
  universalResolverArtifact,
} from '../src';

const ur = universalResolverArtifact.abi as Abi;
const resolverAbi = parseAbi([
  'function text(bytes32 node, string key) view returns (string)',
  'function addr(bytes32 node) view returns (address)',
  'function multicall(bytes[] data) returns (bytes[] results)',
]);
const GATEWAYS = [LOCAL_BATCH_GATEWAY];
/** A resolver whose code is STOP: every call succeeds with no data. */
const EMPTY_RESOLVER = '0x00000000000000000000000000000000000e3e00';
/** A resolver whose code is INVALID (0xfe) only, as before EIP-140: every call fails with no data and all its gas. */
const INVALID_RESOLVER = '0x00000000000000000000000000000000000e3e01';
const FLAG_OFFCHAIN = 0x01n;
const FLAG_EMPTY_RESPONSE = 0x08n;
const FLAG_EIP140_BEFORE = 0x10n;
const FLAG_EIP140_AFTER = 0x20n;
const FLAG_DONE = 0x40n;
/** EIP-3668 context the universal resolver puts in its own `OffchainLookup`'s extraData. */
const CONTEXT = parseAbiParameters('(address, bytes4, bytes, bytes4, bytes4, bytes)');
const BATCH = parseAbiParameters('((address target, bytes call, bytes data, uint256 flags)[], string[])');
/** DNS encoding written out: one length byte, then the label's bytes, per label; then 0. */
const dns = (...labels: Hex[]): Hex =>
  concat([
    ...labels.flatMap((label) => [
      `0x${((label.length - 2) / 2).toString(16).padStart(2, '0')}` as Hex,
      label,
    ]),
    '0x00',
  ]);

const text = (name: string, key: string): Hex =>
  encodeFunctionData({ abi: resolverAbi, functionName: 'text', args: [namehash(name), key] });
const addr = (name: string): Hex =>
  encodeFunctionData({ abi: resolverAbi, functionName: 'addr', args: [namehash(name)] });
const multicall = (calls: Hex[]): Hex =>
  encodeFunctionData({ abi: resolverAbi, functionName: 'multicall', args: [calls] });
const decodeText = (data: Hex): string =>
  decodeFunctionResult({ abi: resolverAbi, functionName: 'text', data });

/** The custom error a call reverted with, as viem decodes it with the UniversalResolver ABI. */
async function revertOf(call: Promise<unknown>): Promise<{ errorName?: string; args?: readonly unknown[] }> {
  const err = await call.then(
    () => {
      throw new Error('expected a revert');
    },
    (e: unknown) => e,
  );
  const reverted =
    err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  if (!(reverted instanceof ContractFunctionRevertedError)) throw err;
  return { errorName: reverted.data?.errorName, args: reverted.data?.args };
}

describe('our UniversalResolver (IUniversalResolver v3 behaviour)', () => {
  let chain: EnsChain;
  let client: PublicClient;
  let gateway: TestGateway;
  let signedResolver: string;
  let legacyResolver: string;
  let foreignResolver: string;
  let urAddress: Address;
  let alice: string;

  const resolveDns = (name: Hex, data: Hex) =>
    client.readContract({
      address: urAddress,
      abi: ur,
      functionName: 'resolveWithGateways',
      args: [name, data, GATEWAYS],
    }) as Promise<readonly [Hex, Address]>;
  const resolve = (name: string, data: Hex) => resolveDns(dnsEncode(name), data);
  const reverse = (address: string, coinType: number) =>
    client.readContract({
      address: urAddress,
      abi: ur,
      functionName: 'reverseWithGateways',
      args: [address as Hex, BigInt(coinType), GATEWAYS],
    }) as Promise<readonly [string, Address, Address]>;

  beforeAll(async () => {
    chain = await startEnsChain();
    urAddress = chain.contracts.universalResolver as Address;
    client = createPublicClient({ transport: http(chain.anvil.rpcUrl) });
    const [deployer, first, second] = chain.accounts;
    if (!deployer || !first || !second) throw new Error('anvil accounts');
    alice = first.address;
    const { ens } = chain;
    await ens.registerEthName('alice', alice);
    await ens.setAddr('alice.eth', alice);
    await ens.setText('alice.eth', 'description', 'on chain');
    await ens.setReverseName(alice, 'alice.eth');
    await ens.setAddrForCoin('alice.eth', DEFAULT_EVM_COIN_TYPE, alice);
    await ens.setAddrForCoin('alice.eth', BASE_COIN_TYPE, alice);
    await ens.setReverseName(alice, 'alice.eth', DEFAULT_EVM_COIN_TYPE);
    // A contract without text/addr: calling them reverts with no data.
    await ens.registerEthName('bare', alice, { resolver: await ens.deployErc1271Wallet(alice) });
    await ens.registerEthName('eoa', alice, { resolver: second.address });
    // second's primary name points at alice.eth, whose address is alice: a mismatch.
    await ens.setReverseName(second.privateKey, 'alice.eth');

    const signer = Wallet.createRandom();
    gateway = await startTestGateway({
      signerKey: signer.privateKey,
      records: {
        'x.signed.eth': { addr: alice, texts: { a: 'one', b: 'two' } },
        'x.legacy.eth': { addr: alice, texts: { a: 'one', b: 'two' } },
      },
    });
    signedResolver = await ens.deployOffchainResolver(gateway.url, [signer.address]);
    legacyResolver = await ens.deployEnsOffchainResolver(gateway.url, [signer.address]);
    await ens.registerEthName('signed', deployer.address, { resolver: signedResolver });
    await ens.registerEthName('legacy', deployer.address, { resolver: legacyResolver });
    await ens.provider.send('anvil_setCode', [EMPTY_RESOLVER, '0x00']);
    await ens.provider.send('anvil_setCode', [INVALID_RESOLVER, '0xfe']);
    await ens.registerEthName('empty', alice, { resolver: EMPTY_RESOLVER });
    await ens.registerEthName('invalid', alice, { resolver: INVALID_RESOLVER });
    // its lookups name the signed resolver as sender and ask our gateway with data it cannot read (HTTP 400)
    const foreign = await deployContract(ens.deployer, foreignLookupResolverTestDoubleArtifact, [
      signedResolver,
      gateway.url,
    ]);
    foreignResolver = await foreign.getAddress();
    await ens.registerEthName('foreign', alice, { resolver: foreignResolver });
  });

  afterAll(async () => {
    await gateway?.stop();
    await chain?.stop();
  });

  it('uses the published error selectors and interface id', () => {
    const errors = Object.fromEntries(
      ur
        .filter((item) => item.type === 'error')
        .map((item) => [
          item.name,
          toFunctionSelector(`${item.name}(${item.inputs.map((input) => input.type).join(',')})`),
        ]),
    );
    expect(errors).toMatchObject({
      ResolverNotFound: '0x77209fe8',
      ResolverNotContract: '0x1e9535f2',
      UnsupportedResolverProfile: '0x7b1c461b',
      ResolverError: '0x95c0c752',
      ReverseAddressMismatch: '0xef9c03ce',
      HttpError: '0x01800152',
    });
    // IUniversalResolver = findResolver(bytes) ^ resolve(bytes,bytes) ^ reverse(bytes,uint256)
    const selectors = ['findResolver(bytes)', 'resolve(bytes,bytes)', 'reverse(bytes,uint256)'].map(
      (signature) => Number.parseInt(toFunctionSelector(signature).slice(2), 16),
    );
    const interfaceId = selectors.reduce((a, b) => (a ^ b) >>> 0, 0);
    expect(`0x${interfaceId.toString(16).padStart(8, '0')}`).toBe('0x6cd2d09b');
  });

  it('answers supportsInterface for ERC-165 and IUniversalResolver (0x6cd2d09b) only', async () => {
    const supports = (id: Hex) =>
      client.readContract({ address: urAddress, abi: ur, functionName: 'supportsInterface', args: [id] });
    expect(await supports('0x01ffc9a7')).toBe(true);
    expect(await supports('0x6cd2d09b')).toBe(true);
    // resolve ^ reverse, an id from before findResolver joined the interface
    expect(await supports('0xcd191b34')).toBe(false);
    expect(await supports('0x9061b923')).toBe(false);
  });

  it('findResolver: offset 0 and no resolver when none is set below the root (the root resolver is not read)', async () => {
    const find = (name: Hex) =>
      client.readContract({ address: urAddress, abi: ur, functionName: 'findResolver', args: [name] });
    const registry = chain.ens.contract('ensRegistry');
    await chain.ens.send(registry, chain.ens.deployer, 'setResolver', [
      zeroHash,
      chain.contracts.publicResolver,
    ]);
    try {
      expect(await find(dns(stringToHex('nosuch'), stringToHex('eth')))).toEqual([
        zeroAddress,
        namehash('nosuch.eth'),
        0n,
      ]);
      expect(await find('0x00')).toEqual([zeroAddress, zeroHash, 0n]);
    } finally {
      await chain.ens.send(registry, chain.ens.deployer, 'setResolver', [zeroHash, zeroAddress]);
    }
    // found on the parent: the offset of "alice" in \x03sub\x05alice\x03eth\x00
    expect(await find(dns(stringToHex('sub'), stringToHex('alice'), stringToHex('eth')))).toEqual([
      chain.contracts.publicResolver,
      namehash('sub.alice.eth'),
      4n,
    ]);
  });

  it('reads a label written [<64 hex>] as that label hash; a zero hash is DNSDecodingFailed', async () => {
    const hashed = (hash: Hex) => stringToHex(`[${hash.slice(2)}]`);
    const name = dns(hashed(labelhash('alice')), stringToHex('eth'));
    const [answer, resolver] = await resolveDns(name, addr('alice.eth'));
    expect(decodeFunctionResult({ abi: resolverAbi, functionName: 'addr', data: answer })).toBe(alice);
    expect(resolver).toBe(chain.contracts.publicResolver);
    const upper = dns(stringToHex(`[${labelhash('alice').slice(2).toUpperCase()}]`), stringToHex('eth'));
    expect((await resolveDns(upper, addr('alice.eth')))[1]).toBe(chain.contracts.publicResolver);
    const zero = dns(hashed(zeroHash), stringToHex('eth'));
    expect(await revertOf(resolveDns(zero, addr('alice.eth')))).toEqual({
      errorName: 'DNSDecodingFailed',
      args: [zero],
    });
    const notHex = dns(stringToHex(`[${'g'.repeat(64)}]`), stringToHex('eth'));
    expect((await revertOf(resolveDns(notHex, addr('alice.eth')))).errorName).toBe('DNSDecodingFailed');
  });

  it('encodes a primary name label over 255 bytes as [<hex of its hash>]: ResolverNotFound, not DNSEncodingFailed', async () => {
    const [, , , account] = chain.accounts;
    if (!account) throw new Error('anvil accounts');
    const label = 'a'.repeat(300);
    await chain.ens.setReverseName(account.privateKey, `${label}.eth`);
    const encoded = dns(stringToHex(`[${keccak256(stringToHex(label)).slice(2)}]`), stringToHex('eth'));
    expect(await revertOf(reverse(account.address, 60))).toEqual({
      errorName: 'ResolverNotFound',
      args: [encoded],
    });
  });

  it('a resolver that answers nothing: UnsupportedResolverProfile(selector) alone, 0x slots in a multicall', async () => {
    expect(await revertOf(resolve('empty.eth', addr('empty.eth')))).toEqual({
      errorName: 'UnsupportedResolverProfile',
      args: ['0x3b3b57de'],
    });
    const [multi] = await resolve('empty.eth', multicall([text('empty.eth', 'a'), addr('empty.eth')]));
    expect(decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi })).toEqual([
      '0x',
      '0x',
    ]);
  });

  it('a pre-EIP-140 resolver (INVALID only): UnsupportedResolverProfile(selector), 0x slots in a multicall', async () => {
    expect(await revertOf(resolve('invalid.eth', text('invalid.eth', 'a')))).toEqual({
      errorName: 'UnsupportedResolverProfile',
      args: [toFunctionSelector('text(bytes32,string)')],
    });
    const [multi] = await resolve('invalid.eth', multicall([text('invalid.eth', 'a'), addr('invalid.eth')]));
    expect(decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi })).toEqual([
      '0x',
      '0x',
    ]);
  });

  it('batched lookups carry the EIP-140 flags: 0x21 offchain, 0x60 answered, 0x58 pre-EIP-140 and empty', async () => {
    // without CCIP-Read, the first OffchainLookup shows the batch the universal resolver sends to the gateways
    const raw = createPublicClient({ transport: http(chain.anvil.rpcUrl), ccipRead: false });
    const lookup = await revertOf(
      raw.readContract({
        address: urAddress,
        abi: ur,
        functionName: 'resolveWithGateways',
        args: [dnsEncode('x.legacy.eth'), addr('x.legacy.eth'), GATEWAYS],
      }),
    );
    expect(lookup.errorName).toBe('OffchainLookup');
    const [sender, urls, callData, callback, extraData] = lookup.args as [Address, string[], Hex, Hex, Hex];
    expect([sender, urls, callData.slice(0, 10), callback]).toEqual([
      urAddress,
      GATEWAYS,
      toFunctionSelector('query((address,string[],bytes)[])'),
      toFunctionSelector('ccipReadCallback(bytes,bytes)'),
    ]);
    const [[target, targetCallback, batchData]] = decodeAbiParameters(CONTEXT, extraData);
    expect([target, targetCallback]).toEqual([
      urAddress,
      toFunctionSelector('ccipBatchCallback(bytes,bytes)'),
    ]);
    const [[lookups, gateways]] = decodeAbiParameters(BATCH, batchData);
    expect(gateways).toEqual(GATEWAYS);
    expect(lookups.map((lu) => [lu.target, lu.flags])).toEqual([
      [legacyResolver, FLAG_OFFCHAIN | FLAG_EIP140_AFTER],
    ]);

    const batch = (await client.readContract({
      address: urAddress,
      abi: ur,
      functionName: 'ccipBatch',
      args: [
        {
          lookups: [
            { target: chain.contracts.publicResolver, call: addr('alice.eth'), data: '0x', flags: 0n },
            { target: INVALID_RESOLVER, call: addr('invalid.eth'), data: '0x', flags: 0n },
          ],
          gateways: GATEWAYS,
        },
      ],
    })) as { lookups: readonly { data: Hex; flags: bigint }[] };
    expect(batch.lookups.map((lu) => lu.flags)).toEqual([
      FLAG_DONE | FLAG_EIP140_AFTER,
      FLAG_DONE | FLAG_EIP140_BEFORE | FLAG_EMPTY_RESPONSE,
    ]);
    expect(batch.lookups[1]?.data).toBe('0x');
  });

  it('an OffchainLookup naming another sender goes to the batch gateway: 1 request, then its HttpError(400)', async () => {
    const before = gateway.requestCount();
    const failure = await revertOf(resolve('foreign.eth', addr('foreign.eth')));
    expect(failure.errorName).toBe('HttpError');
    expect(failure.args?.[0]).toBe(400);
    expect(gateway.requestCount() - before).toBe(1);
  });

  it('requireResolver: the resolver, or ResolverNotFound / ResolverNotContract', async () => {
    const info = (await client.readContract({
      address: urAddress,
      abi: ur,
      functionName: 'requireResolver',
      args: [dnsEncode('alice.eth')],
    })) as { resolver: Address; extended: boolean; offset: bigint; node: Hex };
    expect(info).toMatchObject({
      resolver: chain.contracts.publicResolver,
      extended: false,
      offset: 0n,
      node: namehash('alice.eth'),
    });
    const require = (name: string) =>
      client.readContract({
        address: urAddress,
        abi: ur,
        functionName: 'requireResolver',
        args: [dnsEncode(name)],
      });
    expect((await revertOf(require('nobody.eth'))).errorName).toBe('ResolverNotFound');
    // a resolver found on an ancestor counts only if it is an ENSIP-10 extended resolver
    expect((await revertOf(require('sub.alice.eth'))).errorName).toBe('ResolverNotFound');
    expect(await revertOf(require('eoa.eth'))).toMatchObject({ errorName: 'ResolverNotContract' });
    const wildcard = (await client.readContract({
      address: urAddress,
      abi: ur,
      functionName: 'requireResolver',
      args: [dnsEncode('x.signed.eth')],
    })) as { resolver: Address; extended: boolean; offset: bigint };
    expect(wildcard).toMatchObject({ resolver: signedResolver, extended: true, offset: 2n });
  });

  it('resolves on-chain records, one call or a multicall, with the resolver that answered', async () => {
    const [single, resolver] = await resolve('alice.eth', text('alice.eth', 'description'));
    expect(decodeText(single)).toBe('on chain');
    expect(resolver).toBe(chain.contracts.publicResolver);
    const [multi] = await resolve(
      'alice.eth',
      multicall([text('alice.eth', 'description'), addr('alice.eth')]),
    );
    const slots = decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi });
    expect(decodeText(slots[0] ?? '0x')).toBe('on chain');
    expect(decodeFunctionResult({ abi: resolverAbi, functionName: 'addr', data: slots[1] ?? '0x' })).toBe(
      alice,
    );
  });

  it('a record the resolver does not implement: ResolverError(0x) alone, an empty slot in a multicall', async () => {
    expect(await revertOf(resolve('bare.eth', text('bare.eth', 'description')))).toEqual({
      errorName: 'ResolverError',
      args: ['0x'],
    });
    const [multi] = await resolve('bare.eth', multicall([text('bare.eth', 'a'), addr('bare.eth')]));
    expect(decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi })).toEqual([
      '0x',
      '0x',
    ]);
    expect((await revertOf(resolve('nobody.eth', addr('nobody.eth')))).errorName).toBe('ResolverNotFound');
  });

  it('ENSIP-22: a whole profile from SignedOffchainResolver is one gateway request', async () => {
    const name = 'x.signed.eth';
    const before = gateway.requestCount();
    const [multi, resolver] = await resolve(name, multicall([text(name, 'a'), text(name, 'b'), addr(name)]));
    expect(gateway.requestCount() - before).toBe(1);
    expect(resolver).toBe(signedResolver);
    const slots = decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi });
    expect(slots.slice(0, 2).map(decodeText)).toEqual(['one', 'two']);
  });

  it('ENSIP-21: a resolver without ENSIP-22 gets one request per record, batched through the batch gateway', async () => {
    const name = 'x.legacy.eth';
    const before = gateway.requestCount();
    const [multi, resolver] = await resolve(name, multicall([text(name, 'a'), text(name, 'b'), addr(name)]));
    expect(gateway.requestCount() - before).toBe(3);
    expect(resolver).toBe(legacyResolver);
    const slots = decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi });
    expect(slots.slice(0, 2).map(decodeText)).toEqual(['one', 'two']);
  });

  it('a failing gateway: HttpError for one record, the failure in its slot for a multicall', async () => {
    gateway.setFault('http-500');
    try {
      const single = await revertOf(resolve('x.legacy.eth', text('x.legacy.eth', 'a')));
      expect(single.errorName).toBe('HttpError');
      expect(single.args?.[0]).toBe(500);
      const [multi] = await resolve('x.legacy.eth', multicall([text('x.legacy.eth', 'a')]));
      const slots = decodeFunctionResult({ abi: resolverAbi, functionName: 'multicall', data: multi });
      expect(slots[0]?.slice(0, 10)).toBe('0x01800152'); // HttpError(uint16,string)
    } finally {
      gateway.setFault(null);
    }
  });

  it('ENSIP-19 reverse: Ethereum, the default EVM name, Base falling back to it, and mismatches', async () => {
    const [primary, resolver, reverseResolver] = await reverse(alice, 60);
    expect(primary).toBe('alice.eth');
    expect(resolver).toBe(chain.contracts.publicResolver);
    expect(reverseResolver).toBe(chain.contracts.publicResolver);
    expect((await reverse(alice, DEFAULT_EVM_COIN_TYPE))[0]).toBe('alice.eth');
    const [basePrimary, , baseReverseResolver] = await reverse(alice, BASE_COIN_TYPE);
    expect(basePrimary).toBe('alice.eth');
    expect(baseReverseResolver).toBe(chain.contracts.baseReverseRegistrar);
    const [second] = chain.accounts.slice(2);
    expect(await revertOf(reverse(second?.address ?? '', 60))).toEqual({
      errorName: 'ReverseAddressMismatch',
      args: ['alice.eth', alice.toLowerCase()],
    });
    // no default name for the deployer: Base answers "" through the reverse registrar
    expect(await reverse(chain.accounts[0]?.address ?? '', BASE_COIN_TYPE)).toEqual([
      '',
      zeroAddress,
      chain.contracts.baseReverseRegistrar,
    ]);
    expect((await revertOf(reverse('0x', 60))).errorName).toBe('EmptyAddress');
  });

  it('Multicall3 sits at its canonical address', async () => {
    const [timestamp, failed] = await client.multicall({
      multicallAddress: MULTICALL3_ADDRESS,
      allowFailure: true,
      contracts: [
        {
          address: MULTICALL3_ADDRESS,
          abi: multicall3Artifact.abi as Abi,
          functionName: 'getCurrentBlockTimestamp',
        },
        { address: urAddress, abi: ur, functionName: 'requireResolver', args: ['0x00'] },
      ],
    });
    expect(timestamp?.status).toBe('success');
    expect(Number(timestamp?.result)).toBeGreaterThan(1_600_000_000);
    expect(failed?.status).toBe('failure');
  });
});
