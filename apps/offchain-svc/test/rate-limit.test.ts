import { randomInt } from 'node:crypto';
import request from 'supertest';
import { startOffchainService } from './helpers';

/** A client address of its own per run, so counters left in Redis by earlier runs do not count. */
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const LOOKUP = `/api/v1/subnames/namehash/0x${'00'.repeat(32)}`;

describe('offchain-svc rate limit (RATE_LIMIT_PER_MINUTE per client IP)', () => {
  it('in process: the limit, then 429 RATE_LIMITED with Retry-After', async () => {
    const svc = await startOffchainService({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const ip = randomIp();
      for (let i = 0; i < 3; i++) {
        await request(svc.app).get(LOOKUP).set('X-Forwarded-For', ip).expect(404);
      }
      const limited = await request(svc.app).get(LOOKUP).set('X-Forwarded-For', ip).expect(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      await request(svc.app).get(LOOKUP).set('X-Forwarded-For', randomIp()).expect(404);
    } finally {
      await svc.close();
    }
  });

  (process.env.REDIS_URL ? it : it.skip)('with Redis, replicas share the counters', async () => {
    const env = { TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '4', REDIS_URL: process.env.REDIS_URL ?? '' };
    const a = await startOffchainService(env);
    const b = await startOffchainService(env);
    try {
      await request(a.app)
        .get('/ready')
        .expect(200, { status: 'ok', checks: { database: 'ok', redis: 'ok' } });
      const ip = randomIp();
      for (const svc of [a, b, a, b]) {
        await request(svc.app).get(LOOKUP).set('X-Forwarded-For', ip).expect(404);
      }
      // Each replica alone has seen only two requests of this client.
      await request(a.app).get(LOOKUP).set('X-Forwarded-For', ip).expect(429);
      await request(b.app).get(LOOKUP).set('X-Forwarded-For', ip).expect(429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
