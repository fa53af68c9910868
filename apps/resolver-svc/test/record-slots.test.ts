/**
 * Per-record outcomes of one multicall through the universal resolver: a resolver without a profile leaves
 * those records absent; a failed sub-call (a CCIP-Read gateway) makes the whole lookup a 502 that carries the
 * upstream message and code; the CCIP-Read URL policy refuses gateways that are not allow-listed.
 */
import request from 'supertest';
import { AbiCoder, Interface, concat, getAddress, hexlify, toBeHex } from 'ethers';
import {
  startResolverService,
  startResolverFixture,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

const UR_ERRORS = new Interface([
  'error HttpError(uint16 status, string message)',
  'error UnsupportedResolverProfile(bytes4 selector)',
]);
const ADDR_COIN = '0xf1cb7e06'; // addr(bytes32,uint256)
const TEXT = '0x59d1d43c'; // text(bytes32,string)

/**
 * EVM runtime code of a resolver that forwards every call (STATICCALL, answer or revert passed through) to
 * `target`, except calls with `selector`, which revert with `revertData` (`0x`: an empty revert, as from a
 * contract without that function).
 */
function forwarderExceptCode(target: string, selector: string, revertData: string): string {
  const data = revertData === '0x' ? '' : revertData.slice(2);
  const len = data.length / 2;
  const word = (n: number) => toBeHex(n, 2).slice(2);
  const okAt = 66;
  const failAt = 71;
  const dataAt = 87;
  const code =
    '0x' +
    ['6000', '35', '60e0', '1c'].join('') + // selector = calldataload(0) >> 224
    `63${selector.slice(2)}14` + // == selector ?
    `61${word(failAt)}57` + // jumpi fail
    '36' +
    '6000' +
    '6000' +
    '37' + // calldatacopy(0, 0, calldatasize)
    '6000' +
    '6000' +
    '36' +
    '6000' +
    `73${getAddress(target).slice(2).toLowerCase()}` +
    '5a' +
    'fa' + // staticcall
    '3d' +
    '6000' +
    '6000' +
    '3e' + // returndatacopy(0, 0, returndatasize)
    `61${word(okAt)}57` + // jumpi ok
    '3d' +
    '6000' +
    'fd' + // revert(0, returndatasize)
    '5b' +
    '3d' +
    '6000' +
    'f3' + // ok: return(0, returndatasize)
    '5b' +
    `61${word(len)}` +
    `61${word(dataAt)}` +
    '6000' +
    '39' + // fail: codecopy(0, data, len)
    `61${word(len)}` +
    '6000' +
    'fd' + // revert(0, len)
    data;
  if ((code.length - 2) / 2 !== dataAt + len) throw new Error('forwarder layout is off');
  return code;
}

let fx: ResolverFixture;
let svc: ResolverService;

async function setCode(address: string, code: string): Promise<void> {
  const res = await fetch(fx.chain.anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setCode', params: [address, code] }),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
}

beforeAll(async () => {
  fx = await startResolverFixture();
  svc = await startResolverService(fx.env());
  const { ens, contracts } = fx.chain;
  const owner = fx.accounts.alice;
  // Records on the public resolver, then the name's resolver replaced by a forwarder lacking one profile.
  for (const [label, selector, revertData, resolver] of [
    [
      'partial',
      ADDR_COIN,
      UR_ERRORS.encodeErrorResult('UnsupportedResolverProfile', [ADDR_COIN]),
      '0x00000000000000000000000000000000000a11ce',
    ],
    [
      'flaky',
      TEXT,
      UR_ERRORS.encodeErrorResult('HttpError', [503, 'batch gateway: upstream unavailable']),
      '0x00000000000000000000000000000000000f1a6e',
    ],
  ] as const) {
    const name = `${label}.eth`;
    await ens.registerEthName(label, owner);
    await ens.setText(name, 'name', `${label} name`);
    await ens.setText(name, 'com.github', `${label}-gh`);
    await ens.setAddr(name, owner);
    await ens.setContenthash(
      name,
      '0xe301017012201234567890123456789012345678901234567890123456789012345678901234',
    );
    await setCode(resolver, forwarderExceptCode(contracts.publicResolver, selector, revertData));
    await ens.setResolver(name, resolver);
  }
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await fx?.stop();
});

describe('a multicall slot per record', () => {
  it('the forwarder answers like the public resolver except for its missing profile (self-check)', async () => {
    const abi = AbiCoder.defaultAbiCoder();
    const data = concat([ADDR_COIN, abi.encode(['bytes32', 'uint256'], [toBeHex(1, 32), 60])]);
    const res = await fetch(fx.chain.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: '0x00000000000000000000000000000000000a11ce', data: hexlify(data) }, 'latest'],
      }),
    });
    const body = (await res.json()) as { error?: { data?: string } };
    expect(body.error?.data).toBe(UR_ERRORS.encodeErrorResult('UnsupportedResolverProfile', [ADDR_COIN]));
  });

  it('a resolver without addr(bytes32,uint256) (reverts UnsupportedResolverProfile): every address is exists:false, the texts are present', async () => {
    const res = await request(svc.app).get('/ens/v2/profile/partial.eth?contenthash=true').expect(200);
    expect(res.body.addresses.length).toBe(8);
    for (const address of res.body.addresses) expect(address).toMatchObject({ exists: false, value: '' });
    expect(res.body.texts).toEqual(
      expect.arrayContaining([
        { key: 'name', exists: true, value: 'partial name' },
        { key: 'com.github', exists: true, value: 'partial-gh' },
        { key: 'avatar', exists: false, value: '' },
      ]),
    );
    expect(res.body.contenthash.exists).toBe(true);
    const single = await request(svc.app).get('/ens/v2/addresses/partial.eth?chains=eth').expect(200);
    expect(JSON.stringify(single.body)).toMatch(/"exists":false/);
  });

  it('a sub-call that failed with HttpError (what the batch gateway leaves in a slot): 502 with its message and code', async () => {
    const res = await request(svc.app).get('/ens/v2/profile/flaky.eth?noCache=true');
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('UPSTREAM_ERROR');
    expect(res.body.upstream).toEqual({
      code: 'HttpError',
      message: 'gateway HTTP 503: batch gateway: upstream unavailable',
    });
    // not cached: still a 502, never a profile with the texts missing
    expect((await request(svc.app).get('/ens/v2/profile/flaky.eth')).status).toBe(502);
    // the records that do not go through the failing profile still resolve
    const addresses = await request(svc.app).get('/ens/v2/addresses/flaky.eth?chains=eth').expect(200);
    expect(JSON.stringify(addresses.body)).toMatch(/"exists":true/);
  });
});

describe('a default profile (multicall) through the CCIP-Read gateway', () => {
  afterEach(() => fx.gateway.setFault(null));

  it('gateway HTTP 500: 502 with the gateway message and code', async () => {
    fx.gateway.setFault('http-500');
    const res = await request(svc.app).get('/ens/v2/profile/bob.offchain.eth?noCache=true');
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('UPSTREAM_ERROR');
    expect(res.body.upstream).toEqual({
      code: 'OFFCHAIN_FAULT',
      message: expect.stringContaining('test gateway fault'),
    });
    fx.gateway.setFault(null);
    const ok = await request(svc.app).get('/ens/v2/profile/bob.offchain.eth').expect(200);
    expect(ok.body.texts).toEqual(expect.arrayContaining([{ key: 'name', exists: true, value: 'Bob' }]));
  });

  it('without the allow-list the http://127.0.0.1 gateway is refused: 502, and the gateway is never asked', async () => {
    const strict = await startResolverService(
      fx.env({ CCIP_READ_ALLOWED_ORIGINS: '', CACHE_REDIS_PREFIX: `strict${Date.now()}:` }),
    );
    try {
      const before = fx.gateway.requestCount();
      const res = await request(strict.app).get('/ens/v2/profile/bob.offchain.eth');
      expect(res.status).toBe(502);
      expect(res.body.upstream).toEqual({
        code: 'CCIP_READ_URL_REFUSED',
        message: expect.stringMatching(
          /CCIP-Read gateway URL refused: http:\/\/127\.0\.0\.1:\d+.*only https/,
        ),
      });
      expect(fx.gateway.requestCount()).toBe(before);
      // onchain names are unaffected
      await request(strict.app).get('/ens/v2/profile/alice.eth').expect(200);
    } finally {
      await strict.close();
    }
  });
});
