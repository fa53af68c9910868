import { createTestRedis, deleteByPrefix } from '../src/redis';

const url = process.env.REDIS_URL;

test('returns undefined without a URL', async () => {
  expect(await createTestRedis('')).toBeUndefined();
});

(url ? describe : describe.skip)('with REDIS_URL', () => {
  test('gives unique prefixes and deletes only its own keys on close', async () => {
    const a = await createTestRedis(url);
    const b = await createTestRedis(url);
    if (!a || !b) throw new Error('expected clients');
    try {
      expect(a.prefix).not.toBe(b.prefix);
      await a.client.set(`${a.prefix}k1`, '1');
      await a.client.hset(`${a.prefix}h`, 'f', 'v');
      await b.client.set(`${b.prefix}k1`, '2');
      await a.close();
      expect(await b.client.exists(`${a.prefix}k1`, `${a.prefix}h`)).toBe(0);
      expect(await b.client.get(`${b.prefix}k1`)).toBe('2');
      await a.close(); // idempotent
    } finally {
      await b.close();
    }
  });

  test('deleteByPrefix treats glob characters in the prefix literally', async () => {
    const r = await createTestRedis(url);
    if (!r) throw new Error('expected client');
    try {
      await r.client.set(`${r.prefix}x*`, '1');
      await r.client.set(`${r.prefix}xy`, '1');
      expect(await deleteByPrefix(r.client, `${r.prefix}x*`)).toBe(1);
      expect(await r.client.exists(`${r.prefix}xy`)).toBe(1);
    } finally {
      await r.close();
    }
  });
});
