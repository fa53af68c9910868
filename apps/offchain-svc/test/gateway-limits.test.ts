import { randomInt } from 'node:crypto';
import { AbiCoder, Wallet } from 'ethers';
import request from 'supertest';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import { startOffchainService, type OffchainService } from './helpers';

const SIGNER = new Wallet('0x' + '5a'.repeat(32));
const SENDER = '0x' + '0f'.repeat(20);
const PARENT = 'limits.eth';
const coder = AbiCoder.defaultAbiCoder();

/** `resolve(name, multicall(text(node, key) for each key))`. */
function multicallData(name: string, keys: string[]): string {
  const calls = keys.map((key) => resolverInterface.encodeFunctionData('text', [namehash(name), key]));
  const inner = resolverInterface.encodeFunctionData('multicall', [calls]);
  return resolverInterface.encodeFunctionData('resolve', [dnsEncode(name), inner]);
}
const multicallPath = (name: string, keys: string[]) =>
  `/api/v1/gateway/${SENDER}/${multicallData(name, keys)}.json`;

/** A client address of its own per run. */
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

describe('CCIP-Read gateway budget: multicall calls and answer bytes', () => {
  let svc: OffchainService;
  let apiKey: string;

  beforeAll(async () => {
    svc = await startOffchainService({ GATEWAY_SIGNER_KEY: SIGNER.privateKey });
    apiKey = await svc.keyFor(PARENT);
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('refuses a multicall of more than 200 calls with a 400, before any work', async () => {
    const keys = Array.from({ length: 201 }, (_, i) => `key${i}`);
    const res = await request(svc.app)
      .post('/api/v1/gateway')
      .send({ sender: SENDER, data: multicallData(`a.${PARENT}`, keys) })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('UNSUPPORTED_RESOLVER_CALL');
    expect(res.body.message).toBe('a multicall carries at most 200 calls (this one 201)');
  });

  it('refuses the 2,300-call multicall of the finding by its size, before reading it (413)', async () => {
    const keys = Array.from({ length: 2300 }, (_, i) => `key${i}`);
    const res = await request(svc.app)
      .post('/api/v1/gateway')
      .send({ sender: SENDER, data: multicallData(`a.${PARENT}`, keys) })
      .expect(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 200 calls, and refuses one whose answer would pass 1 MiB', async () => {
    const texts = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: 'é'.repeat(4096) }));
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', apiKey)
      .send({ parentName: PARENT, label: 'big', texts })
      .expect(201);
    const name = `big.${PARENT}`;
    const small = Array.from({ length: 200 }, (_, i) => `missing${i}`);
    const post = (keys: string[]) =>
      request(svc.app)
        .post('/api/v1/gateway')
        .send({ sender: SENDER, data: multicallData(name, keys) });
    const ok = await post(small).expect(200);
    const [result] = coder.decode(['bytes', 'uint64', 'bytes'], ok.body.data as string);
    expect(resolverInterface.decodeFunctionResult('multicall', result as string)[0]).toHaveLength(200);
    // 200 texts of 8 KB (4096 two-byte characters) each: 1.6 MB.
    const large = Array.from({ length: 200 }, (_, i) => `k${i % 100}`);
    const refused = await post(large).expect(400);
    expect(refused.body.code).toBe('UNSUPPORTED_RESOLVER_CALL');
    expect(refused.body.message).toBe('the answer would exceed 1048576 bytes; split the multicall');
  });
});

describe('CCIP-Read gateway fairness: per-client shares under the ceiling', () => {
  let svc: OffchainService;
  const lookup = (ip: string) =>
    request(svc.app)
      .get(multicallPath(`fair.${PARENT}`, ['avatar']))
      .set('X-Forwarded-For', ip);
  const invalid = (ip: string) =>
    request(svc.app).get(`/api/v1/gateway/${SENDER}/0xdeadbeef.json`).set('X-Forwarded-For', ip);

  beforeAll(async () => {
    svc = await startOffchainService({
      GATEWAY_SIGNER_KEY: SIGNER.privateKey,
      TRUST_PROXY: '1',
      GATEWAY_RATE_LIMIT_PER_MINUTE: '20',
      GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE: '10',
      // Every lookup reaches the database: none is answered from the cache.
      ANSWER_CACHE_SECONDS: '0',
    });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('a flood of invalid requests limits its own addresses, not the others', async () => {
    const flooders = Array.from({ length: 4 }, randomIp);
    for (const ip of flooders) {
      for (let i = 0; i < 10; i++) await invalid(ip).expect(400);
      const limited = await invalid(ip).expect(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
    }
    // 44 requests sent, more than twice the ceiling: none of them counted against it.
    const client = randomIp();
    for (let i = 0; i < 10; i++) await lookup(client).expect(200);
    // A client past its share is refused; another still gets through under the ceiling.
    await lookup(client).expect(429);
    await lookup(randomIp()).expect(200);
  });
});
