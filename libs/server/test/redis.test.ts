import { Writable } from 'node:stream';
import { pino } from 'pino';
import { closeRedis, redisFromConfig } from '../src';

/** A pino logger whose lines are kept for the assertions. */
function capturingLogger() {
  const lines: Array<{ msg?: string; err?: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as { msg?: string; err?: string });
      callback();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

describe('redisFromConfig', () => {
  it('is undefined without REDIS_URL, and registers nothing to close', () => {
    const onShutdown: Array<() => Promise<void>> = [];
    expect(redisFromConfig({}, capturingLogger().logger, onShutdown)).toBeUndefined();
    expect(onShutdown).toHaveLength(0);
  });

  it('with Redis down: commands fail within seconds, errors are logged not thrown, shutdown resolves', async () => {
    const { logger, lines } = capturingLogger();
    const onShutdown: Array<() => Promise<void>> = [];
    // Port 1 on loopback: connection refused.
    const redis = redisFromConfig({ REDIS_URL: 'redis://127.0.0.1:1' }, logger, onShutdown);
    if (!redis) throw new Error('expected a client');
    const started = Date.now();
    await expect(redis.incr('x')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(lines.some((l) => l.msg === 'redis error' && typeof l.err === 'string')).toBe(true);
    expect(onShutdown).toHaveLength(1);
    for (const step of onShutdown) await step();
    // Closed: it stops trying to reconnect.
    let reconnects = 0;
    redis.on('reconnecting', () => reconnects++);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reconnects).toBe(0);
    await closeRedis(redis); // twice is harmless
  });

  (process.env.REDIS_URL ? it : it.skip)('with REDIS_URL: a working client, closed on shutdown', async () => {
    const onShutdown: Array<() => Promise<void>> = [];
    const redis = redisFromConfig({ REDIS_URL: process.env.REDIS_URL }, capturingLogger().logger, onShutdown);
    if (!redis) throw new Error('expected a client');
    expect(await redis.ping()).toBe('PONG');
    for (const step of onShutdown) await step();
    await expect(redis.ping()).rejects.toThrow(/closed/i);
  });
});
