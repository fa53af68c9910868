import request from 'supertest';
import {
  startResolverService,
  startResolverFixture,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

let fx: ResolverFixture;
let svc: ResolverService;
beforeAll(async () => {
  fx = await startResolverFixture();
  svc = await startResolverService(fx.env());
});
afterAll(async () => {
  await svc?.close();
  await fx?.stop();
});

/** The value of one sample of the Prometheus text at /metrics (0 when absent). */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const text = (await request(svc.app).get('/metrics').expect(200)).text;
  const line = text
    .split('\n')
    .find(
      (l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('resolver-svc domain metrics', () => {
  it('counts result cache misses and hits, and the RPC calls a miss makes', async () => {
    const rpcBefore = await sample('rpc_call_duration_seconds_count', {
      network: 'sepolia',
      method: 'eth_call',
      outcome: 'ok',
    });
    await request(svc.app).get('/ens/v2/profile/alice.eth').expect(200);
    await request(svc.app).get('/ens/v2/profile/alice.eth').expect(200);

    expect(await sample('cache_lookups_total', { cache: 'results', result: 'miss' })).toBe(1);
    expect(await sample('cache_lookups_total', { cache: 'results', result: 'hit' })).toBe(1);
    const rpcAfter = await sample('rpc_call_duration_seconds_count', {
      network: 'sepolia',
      method: 'eth_call',
      outcome: 'ok',
    });
    expect(rpcAfter).toBeGreaterThan(rpcBefore);
  });
});
