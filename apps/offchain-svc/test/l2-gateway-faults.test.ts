/**
 * The L2 gateway never signs a doubtful answer: an L2 RPC node that is gone, stale, lying about its block height or
 * answering garbage (produced by the RPC proxy in front of a real anvil) is a 503 or 502 problem with `message`,
 * no `data`, and no host, port or socket code in the body; a failed read is never cached.
 */
import request from 'supertest';
import { resolverInterface } from '@nrp/chain';
import { ALICE, startOffchainService, type OffchainService } from './helpers';
import { startGatewayL2, type GatewayL2 } from './l2-chain';
import {
  SENDER,
  SIGNER,
  addrCall,
  multicall,
  resolveCall,
  textCall,
  verifiedResult,
} from './l2-gateway-helpers';

const NAME = 'dave.l2.eth';
const word = (hex: string) => hex.padStart(64, '0');

describe('L2 gateway: a failing L2 RPC node is never signed for', () => {
  let l2: GatewayL2;
  let svc: OffchainService;
  let clockOffsetMs = 0;
  const get = (callData: string) =>
    request(svc.app).get(`/api/v1/gateway/l2/base-sepolia/${l2.registry}/${SENDER}/${callData}.json`);

  /** The problem answered to `callData`, checked: its status and code, `message`, nothing signed, nothing leaked. */
  async function refused(callData: string, status: number, code: string) {
    const res = await get(callData).expect(status);
    expect(res.body).toMatchObject({ code, message: expect.any(String) });
    expect(res.body.data).toBeUndefined();
    const body = JSON.stringify(res.body);
    expect(body).not.toMatch(/127\.0\.0\.1|localhost|ECONN|EPIPE|socket/i);
    expect(body).not.toContain(String(new URL(l2.proxy.url).port));
    return res;
  }

  beforeAll(async () => {
    l2 = await startGatewayL2();
    svc = await startOffchainService(
      {
        GATEWAY_SIGNER_KEY: SIGNER.privateKey,
        BASE_SEPOLIA_RPC_URL: l2.proxy.url,
        BASE_SEPOLIA_L2_REGISTRIES: l2.registry,
        // anvil mines only on transactions: generous, so the clock moved by the tests never makes the head stale.
        L2_MAX_BLOCK_AGE_SECONDS: '600',
        RPC_TIMEOUT_MS: '1500',
      },
      { now: () => new Date(Date.now() + clockOffsetMs) },
    );
    await l2.register('dave');
    await l2.setRecord('setAddr', NAME, [ALICE]);
    await l2.setRecord('setText', NAME, ['description', 'dave on base']);
  });

  afterAll(async () => {
    await svc?.close();
    await l2?.stop();
  });

  beforeEach(() => {
    // Past the answer cache of the test before (L2_ANSWER_CACHE_MS, 2 s), well within the block age limit.
    clockOffsetMs += 2000;
    l2.proxy.setFault(undefined);
    l2.proxy.reset();
  });

  it.each(['eth_getBlockByNumber', 'eth_call'])(
    'answers 503 L2_UNAVAILABLE with Retry-After when the node drops %s, and reads afresh once it is back',
    async (method) => {
      const callData = resolveCall(NAME, addrCall(NAME));
      l2.proxy.setFault((call) => (call.method === method ? 'drop' : undefined));
      const res = await refused(callData, 503, 'L2_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.message).toMatch(/RPC node .*unreachable.*Nothing was signed/);
      l2.proxy.setFault(undefined);
      const ok = await get(callData).expect(200);
      expect(
        resolverInterface.decodeFunctionResult('addr(bytes32)', verifiedResult(ok.body.data, callData))[0],
      ).toBe(ALICE);
    },
  );

  it('answers 503 L2_UNAVAILABLE when the node does not answer within RPC_TIMEOUT_MS', async () => {
    l2.proxy.setFault((call) => (call.method === 'eth_call' ? 'hang' : undefined));
    const res = await refused(resolveCall(NAME, addrCall(NAME)), 503, 'L2_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.message).toMatch(/RPC node for base-sepolia did not answer in time\. Nothing was signed/);
  });

  it('answers 502 when the node answers something that is not JSON-RPC', async () => {
    l2.proxy.setFault(() => 'not-json');
    await refused(resolveCall(NAME, addrCall(NAME)), 502, 'UPSTREAM_ERROR');
  });

  it('answers 503 L2_STALE when the latest block is older than L2_MAX_BLOCK_AGE_SECONDS, reading nothing else', async () => {
    const callData = resolveCall(NAME, textCall(NAME, 'description'));
    clockOffsetMs += 601_000;
    const res = await refused(callData, 503, 'L2_STALE');
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.message).toMatch(/is \d+ s old, more than 600 s/);
    expect(l2.proxy.methods()).toEqual(['eth_getBlockByNumber']);
    clockOffsetMs -= 601_000;
    await get(callData).expect(200);
  });

  it('answers 502 when the node answers a lower block than it did before (lying about its height)', async () => {
    const callData = resolveCall(NAME, textCall(NAME, 'description'));
    await get(callData).expect(200);
    clockOffsetMs += 2000;
    const earlier = await l2.block(1);
    l2.proxy.reset();
    l2.proxy.setFault((call) => (call.method === 'eth_getBlockByNumber' ? { result: earlier } : undefined));
    const res = await refused(callData, 502, 'UPSTREAM_ERROR');
    expect(res.body.message).toMatch(/block 1, below \d+/);
    expect(l2.proxy.methods()).toEqual(['eth_getBlockByNumber']);
  });

  const offset = word('20');
  it.each([
    ['cut short', addrCall(NAME), '0x1234'],
    ['empty (no contract)', addrCall(NAME), '0x'],
    ['an address word with nonzero high bytes', addrCall(NAME), `0x01${'00'.repeat(11)}${ALICE.slice(2)}`],
    ['longer than the result', addrCall(NAME), `0x${word(ALICE.slice(2))}${word('1')}`],
    [
      'a string whose offset points past the answer',
      textCall(NAME, 'description'),
      `0x${word('80')}${word('0')}`,
    ],
    ['a string whose length runs past the answer', textCall(NAME, 'description'), `0x${offset}${word('40')}`],
    [
      'a text that is not UTF-8',
      textCall(NAME, 'description'),
      `0x${offset}${word('2')}${'fffe'.padEnd(64, '0')}`,
    ],
    [
      'a string with nonzero padding',
      textCall(NAME, 'description'),
      `0x${offset}${word('1')}${'61ff'.padEnd(64, '0')}`,
    ],
    ['not hex', textCall(NAME, 'description'), 'hello'],
    ['not a string', addrCall(NAME), 42],
  ])('answers 502 when an eth_call answer is %s', async (_what, inner, garbage) => {
    l2.proxy.setFault((call) => (call.method === 'eth_call' ? { result: garbage } : undefined));
    const res = await refused(resolveCall(NAME, inner), 502, 'UPSTREAM_ERROR');
    expect(res.body.message).toMatch(
      /L2Registry .* on base-sepolia at block \d+: answered .*, not the ABI encoding of/,
    );
  });

  it('answers 502 for a multicall when one of its answers is garbage, and caches nothing', async () => {
    const callData = resolveCall(NAME, multicall([addrCall(NAME), textCall(NAME, 'description')]));
    l2.proxy.setFault((call) =>
      call.method === 'eth_call' && String((call.params[0] as { data: string }).data).startsWith('0x59d1d43c')
        ? { result: '0x00' }
        : undefined,
    );
    await refused(callData, 502, 'UPSTREAM_ERROR');
    l2.proxy.setFault(undefined);
    l2.proxy.reset();
    await get(callData).expect(200);
    expect(l2.proxy.requests()).toBe(2);
  });

  it('answers 503 GATEWAY_NOT_CONFIGURED without a signing key, reading nothing', async () => {
    const unsigned = await startOffchainService({
      BASE_SEPOLIA_RPC_URL: l2.proxy.url,
      BASE_SEPOLIA_L2_REGISTRIES: l2.registry,
    });
    try {
      const res = await request(unsigned.app)
        .post(`/api/v1/gateway/l2/base-sepolia/${l2.registry}`)
        .send({ sender: SENDER, data: resolveCall(NAME, addrCall(NAME)) })
        .expect(503);
      expect(res.body).toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED', message: expect.any(String) });
      expect(l2.proxy.requests()).toBe(0);
    } finally {
      await unsigned.close();
    }
  });

  it('counts L2 reads (not cached answers) against the one gateway ceiling it shares with the offchain gateway', async () => {
    const limited = await startOffchainService({
      GATEWAY_SIGNER_KEY: SIGNER.privateKey,
      BASE_SEPOLIA_RPC_URL: l2.proxy.url,
      BASE_SEPOLIA_L2_REGISTRIES: l2.registry,
      GATEWAY_RATE_LIMIT_PER_MINUTE: '2',
    });
    const lookup = (callData: string) =>
      request(limited.app).get(`/api/v1/gateway/l2/base-sepolia/${l2.registry}/${SENDER}/${callData}.json`);
    try {
      const first = resolveCall(NAME, textCall(NAME, 'description'));
      await lookup(first).expect(200);
      await lookup(first).expect(200); // cached: not counted
      await lookup(resolveCall(NAME, addrCall(NAME))).expect(200);
      const refused = await lookup(resolveCall(NAME, textCall(NAME, 'url'))).expect(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      const offchain = resolveCall('alice.offchain.eth', addrCall('alice.offchain.eth'));
      await request(limited.app).post('/api/v1/gateway').send({ sender: SENDER, data: offchain }).expect(429);
    } finally {
      await limited.close();
    }
  });
});
