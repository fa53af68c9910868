/**
 * The CCIP-Read gateway of L2 names through HTTP, reading a real L2Registry on anvil (84532) behind an RPC proxy,
 * and resolved end to end from L1 (ENS on a second anvil, the parent's L2NameResolver pointing at this service)
 * with viem's getEnsAddress / getEnsText; then the parent setup's choice between that signed resolver and a proven one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Contract, getAddress } from 'ethers';
import type { ParentSetup } from '@nrp/api';
import { createPublicClient, http, type Abi, type Address } from 'viem';
import { getEnsAddress, getEnsText } from 'viem/actions';
import { resolverInterface } from '@nrp/chain';
import {
  deployContract,
  l2NameResolverArtifact,
  provenL2ResolverArtifact,
  universalResolverArtifact,
} from '@nrp/contracts';
import { dnsEncode, encodeContenthash } from '@nrp/ens';
import { L2_CHAIN_ID, LOCAL_BATCH_GATEWAY, devChainEnv, startEnsChain, type EnsChain } from '@nrp/testkit';
import { ALICE, BOB, IPFS, startOffchainService, type OffchainService } from './helpers';
import { startGatewayL2, type GatewayL2 } from './l2-chain';
import {
  BASE_COIN,
  SENDER,
  SIGNER,
  addrCall,
  coinCall,
  contenthashCall,
  decodeMulticall,
  multicall,
  resolveCall,
  textCall,
  verifiedResult,
} from './l2-gateway-helpers';

const NAME = 'carol.l2.eth';
const CACHE_MS = 2000;
/** The verifier the setup offers a ProvenL2Resolver with (only stored by the resolver: whatever address is given will do). */
const VERIFIER = '0x00000000000000000000000000000000000000fe';

describe('L2 gateway: records of L2Registry names, signed', () => {
  let l2: GatewayL2;
  let l1: EnsChain;
  let svc: OffchainService;
  let server: Server;
  let base: string;
  /** The service's clock: the real one moved by `clockOffsetMs`, or stopped at `stoppedAt` while a test needs it. */
  let clockOffsetMs = 0;
  let stoppedAt: number | undefined;
  const path = () => `/api/v1/gateway/l2/base-sepolia/${l2.registry}`;
  const get = (callData: string) => request(svc.app).get(`${path()}/${SENDER}/${callData}.json`);
  const post = (callData: string) => request(svc.app).post(path()).send({ sender: SENDER, data: callData });

  beforeAll(async () => {
    [l2, l1] = await Promise.all([startGatewayL2(), startEnsChain()]);
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    svc = await startOffchainService(
      {
        ...devChainEnv(l1.contracts, l1.anvil.rpcUrl),
        GATEWAY_SIGNER_KEY: SIGNER.privateKey,
        BASE_SEPOLIA_RPC_URL: l2.proxy.url,
        BASE_SEPOLIA_L2_REGISTRIES: l2.registry,
        BASE_SEPOLIA_PROOF_VERIFIER: VERIFIER,
        PUBLIC_BASE_URL: base,
        // anvil mines only on transactions: generous, so the clock moved by the tests never makes the head stale.
        L2_MAX_BLOCK_AGE_SECONDS: '600',
      },
      { now: () => new Date((stoppedAt ?? Date.now()) + clockOffsetMs) },
    );
    server.on('request', svc.app);
    await l2.register('carol');
    await l2.setRecord('setAddr', NAME, [ALICE]);
    await l2.setRecord('setAddr', NAME, [BigInt(BASE_COIN), BOB.toLowerCase()]);
    await l2.setRecord('setText', NAME, ['description', 'carol on base']);
    await l2.setRecord('setContenthash', NAME, [encodeContenthash(IPFS)]);
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await svc?.close();
    await Promise.all([l2?.stop(), l1?.stop()]);
  });

  beforeEach(() => {
    // Each test starts past the answer cache of the one before.
    clockOffsetMs += CACHE_MS;
    stoppedAt = undefined;
    l2.proxy.reset();
  });

  it.each([
    ['addr(bytes32)', addrCall(NAME), ALICE],
    ['addr(bytes32,uint256)', coinCall(NAME, BASE_COIN), BOB.toLowerCase()],
    ['text(bytes32,string)', textCall(NAME, 'description'), 'carol on base'],
    ['contenthash(bytes32)', contenthashCall(NAME), encodeContenthash(IPFS)],
  ])('answers %s from the registry, signed by the gateway key (GET)', async (fn, inner, expected) => {
    const callData = resolveCall(NAME, inner);
    const res = await get(callData).expect(200);
    const result = verifiedResult(res.body.data, callData);
    expect(resolverInterface.decodeFunctionResult(fn, result)[0]).toBe(expected);
  });

  it('answers a whole profile (multicall, POST) from one block: the block first, then one batch of eth_calls', async () => {
    const fns = ['addr(bytes32)', 'addr(bytes32,uint256)', 'text', 'text', 'contenthash'];
    const inner = multicall([
      addrCall(NAME),
      coinCall(NAME, BASE_COIN),
      textCall(NAME, 'description'),
      textCall(NAME, 'url'),
      contenthashCall(NAME),
    ]);
    const callData = resolveCall(NAME, inner);
    const res = await post(callData).expect(200);
    expect(decodeMulticall(verifiedResult(res.body.data, callData), fns)).toEqual([
      ALICE,
      BOB.toLowerCase(),
      'carol on base',
      '',
      encodeContenthash(IPFS),
    ]);
    expect(l2.proxy.requests()).toBe(2);
    const [block, ...calls] = l2.proxy.seen;
    expect(block).toMatchObject({ method: 'eth_getBlockByNumber', params: ['latest', false] });
    const latest = await l2.block('latest');
    expect(calls.map((c) => [c.method, c.params[1]])).toEqual(fns.map(() => ['eth_call', latest.number]));
  });

  it('reads at namehash(the DNS-encoded name), whatever node the call carries', async () => {
    const callData = resolveCall(NAME, textCall('someone.else.eth', 'description'));
    const res = await get(callData).expect(200);
    expect(resolverInterface.decodeFunctionResult('text', verifiedResult(res.body.data, callData))[0]).toBe(
      'carol on base',
    );
  });

  it('answers a name the registry does not hold with empty records, signed', async () => {
    const name = 'nobody.l2.eth';
    const callData = resolveCall(name, multicall([addrCall(name), textCall(name, 'description')]));
    const res = await post(callData).expect(200);
    expect(decodeMulticall(verifiedResult(res.body.data, callData), ['addr(bytes32)', 'text'])).toEqual([
      '0x0000000000000000000000000000000000000000',
      '',
    ]);
  });

  it('answers a name that does not normalise with empty records, without reading the L2', async () => {
    const dns = new Uint8Array([3, 0x61, 0x20, 0x62, 2, 0x6c, 0x32, 3, 0x65, 0x74, 0x68, 0]); // "a b.l2.eth"
    const callData = resolveCall(dns, textCall(NAME, 'description'));
    const res = await get(callData).expect(200);
    expect(resolverInterface.decodeFunctionResult('text', verifiedResult(res.body.data, callData))[0]).toBe(
      '',
    );
    expect(l2.proxy.requests()).toBe(0);
  });

  it('serves an identical request from the cache for L2_ANSWER_CACHE_MS, then reads the change', async () => {
    const callData = resolveCall(NAME, textCall(NAME, 'status'));
    const text = (data: string) =>
      resolverInterface.decodeFunctionResult('text', verifiedResult(data, callData))[0];
    stoppedAt = Date.now();
    expect(text((await get(callData).expect(200)).body.data)).toBe('');
    await l2.setRecord('setText', NAME, ['status', 'changed on the L2']);
    l2.proxy.reset();
    clockOffsetMs += CACHE_MS - 1;
    expect(text((await post(callData).expect(200)).body.data)).toBe('');
    expect(l2.proxy.requests()).toBe(0);
    clockOffsetMs += 1;
    expect(text((await get(callData).expect(200)).body.data)).toBe('changed on the L2');
    expect(l2.proxy.requests()).toBe(2);
  });

  it.each([
    [
      'an unknown network',
      '/api/v1/gateway/l2/optimism/0x0000000000000000000000000000000000000001',
      400,
      'INVALID_INPUT',
    ],
    [
      'a registry not served',
      '/api/v1/gateway/l2/base-sepolia/0x0000000000000000000000000000000000000001',
      404,
      'L2_REGISTRY_NOT_SERVED',
    ],
    ['a registry served on another L2', '/api/v1/gateway/l2/base/{registry}', 404, 'L2_REGISTRY_NOT_SERVED'],
  ])('refuses %s', async (_what, route, status, code) => {
    const callData = resolveCall(NAME, addrCall(NAME));
    const url = route.replace('{registry}', l2.registry);
    const viaPost = await request(svc.app).post(url).send({ sender: SENDER, data: callData }).expect(status);
    expect(viaPost.body.code).toBe(code);
    const viaGet = await request(svc.app).get(`${url}/${SENDER}/${callData}.json`).expect(status);
    expect(viaGet.body.code).toBe(code);
    if (status === 404) expect(viaGet.body.message).toMatch(/does not serve L2Registry/);
    expect(l2.proxy.requests()).toBe(0);
  });

  it.each([
    ['not resolve(bytes,bytes)', '0x12345678', 'INVALID_CCIP_REQUEST'],
    [
      'a call the gateway does not answer',
      resolveCall(NAME, '0x691f3431' + '00'.repeat(32)),
      'UNSUPPORTED_RESOLVER_CALL',
    ],
    ['not hex', '0xzz', 'INVALID_INPUT'],
  ])('refuses callData that is %s (400), never reading the L2', async (_what, callData, code) => {
    expect((await get(callData).expect(400)).body.code).toBe(code);
    expect((await post(callData).expect(400)).body.code).toBe(code);
    expect(l2.proxy.requests()).toBe(0);
  });

  it('resolves end to end from L1: viem getEnsAddress / getEnsText through the parent’s L2NameResolver', async () => {
    const url = `${base}/api/v1/gateway/l2/base-sepolia/${l2.registry}/{sender}/{data}.json`;
    const deployer = l1.accounts[0]?.address ?? '';
    const resolver = await deployContract(l1.ens.deployer, l2NameResolverArtifact, [
      url,
      [SIGNER.address],
      L2_CHAIN_ID,
      l2.registry,
    ]);
    await l1.ens.registerEthName('l2', deployer, { resolver: await resolver.getAddress() });
    const client = createPublicClient({ transport: http(l1.anvil.rpcUrl) });
    const universalResolverAddress = l1.contracts.universalResolver as Address;
    expect(await getEnsAddress(client, { name: NAME, universalResolverAddress })).toBe(ALICE);
    expect(
      await getEnsAddress(client, { name: NAME, coinType: BigInt(BASE_COIN), universalResolverAddress }),
    ).toBe(BOB.toLowerCase());
    expect(await getEnsText(client, { name: NAME, key: 'description', universalResolverAddress })).toBe(
      'carol on base',
    );
    expect(
      await getEnsText(client, { name: 'nobody.l2.eth', key: 'description', universalResolverAddress }),
    ).toBeNull();

    // A whole profile (ENSIP-22) through the universal resolver: one gateway request, one block read on the L2.
    let gatewayRequests = 0;
    server.on('request', () => (gatewayRequests += 1));
    l2.proxy.reset();
    const fns = ['addr(bytes32)', 'text', 'contenthash'];
    const profile = multicall([addrCall(NAME), textCall(NAME, 'description'), contenthashCall(NAME)]);
    const [answer] = (await client.readContract({
      address: universalResolverAddress,
      abi: universalResolverArtifact.abi as Abi,
      functionName: 'resolveWithGateways',
      args: [dnsEncode(NAME), profile, [LOCAL_BATCH_GATEWAY]],
    })) as readonly [string, Address];
    expect(decodeMulticall(answer, fns)).toEqual([ALICE, 'carol on base', encodeContenthash(IPFS)]);
    expect(gatewayRequests).toBe(1);
    expect(l2.proxy.methods().filter((m) => m === 'eth_getBlockByNumber')).toHaveLength(1);
  });
  it('the parent setup offers l2.eth both resolvers, says what each trusts, and switches it to the proven one', async () => {
    const setup = async () =>
      (await request(svc.app).get('/api/v1/parents/l2.eth/setup?network=sepolia').expect(200))
        .body as ParentSetup;
    const deployer = l1.accounts[0]?.address ?? '';
    const signed = await setup();
    // The previous test set l2.eth's resolver to an L2NameResolver of this registry: the signed option is chosen.
    expect(signed).toMatchObject({ controller: deployer, resolverIsOurs: true, ready: true, steps: [] });
    expect(signed.l2).toMatchObject({ network: 'base-sepolia', registry: l2.registry });
    const [signedOption, provenOption] = signed.l2?.options ?? [];
    expect(signedOption).toMatchObject({
      kind: 'signed',
      contract: 'L2NameResolver',
      gatewayUrl: `${base}/api/v1/gateway/l2/base-sepolia/${l2.registry}/{sender}/{data}.json`,
      chosen: true,
      steps: [],
    });
    expect(signedOption?.trust).toContain(`gateway signer ${SIGNER.address}`);
    expect(signedOption?.trust).toContain('as fresh as the L2');
    expect(provenOption).toMatchObject({
      kind: 'proven',
      contract: 'ProvenL2Resolver',
      gatewayUrl: `${base}/api/v1/proofs/base-sepolia`,
      chosen: false,
    });
    expect(provenOption?.trust).toContain('Trusts nothing of ours');
    expect(provenOption?.trust).toContain(`verifier ${getAddress(VERIFIER)}`);
    expect(provenOption?.trust).toContain('lag the L2');
    expect(provenOption?.steps.map((step) => step.to)).toEqual([null, getAddress(l1.contracts.ensRegistry)]);

    const sender = l1.ens.signerOf(deployer);
    for (const step of provenOption?.steps ?? []) {
      const tx = await sender.sendTransaction({ to: step.to, data: step.data, value: BigInt(step.value) });
      await tx.wait();
    }
    const resolver = await l1.ens.resolverOf('l2.eth');
    // The deployment got the address the answer announced, the one its setResolver step set.
    expect(provenOption?.steps.map((step) => step.contractAddress)).toEqual([resolver, null]);
    const proven = new Contract(resolver, provenL2ResolverArtifact.abi, l1.ens.deployer);
    expect(await proven.getFunction('verifier')()).toBe(getAddress(VERIFIER));
    expect(await proven.getFunction('l2Registry')()).toBe(l2.registry);
    expect(await proven.getFunction('l2ChainId')()).toBe(BigInt(L2_CHAIN_ID));
    const after = await setup();
    expect(after).toMatchObject({ resolver, resolverIsOurs: true, ready: true });
    expect(after.l2?.options.map((option) => [option.kind, option.chosen, option.steps.length])).toEqual([
      ['signed', false, 2],
      ['proven', true, 0],
    ]);
  });
});
