import type { DatabaseHandle } from '@nrp/db';
import { createNonceStore, startNonceSweeper, type NonceTables, type PgNonceStore } from '../src';
import { alice, openNonceDatabase } from './support';

const TTL = 1000;
let handle: DatabaseHandle<NonceTables>;
let store: PgNonceStore;

beforeAll(async () => {
  handle = await openNonceDatabase('swept_nonces');
  store = createNonceStore(handle.db, { table: 'swept_nonces', ttlMs: TTL });
});
afterAll(() => handle.close());

const count = async () =>
  Number(
    (
      await handle.db
        .selectFrom('swept_nonces' as 'auth_nonces')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

function recordingLogger() {
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  return {
    lines,
    logger: {
      debug: (obj: object, msg: string) => lines.push({ level: 'debug', obj, msg }),
      error: (obj: object, msg: string) => lines.push({ level: 'error', obj, msg }),
    },
  };
}

const until = async (check: () => Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('startNonceSweeper', () => {
  it('deletes expired nonces on its interval and keeps live ones; stop ends it', async () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    let clock = t0;
    await store.issue(alice.address, 'avatar', t0); // expires at t0 + TTL
    const live = await store.issue(alice.address, 'avatar', new Date(t0.getTime() + 10 * TTL));
    const { logger, lines } = recordingLogger();
    const stop = startNonceSweeper(store, 25, logger, () => clock);
    try {
      clock = new Date(t0.getTime() + 2 * TTL);
      await until(async () => (await count()) === 1);
      await until(async () => lines.some((l) => l.msg === 'periodic task ran'));
    } finally {
      await stop();
    }
    await store.consume(live.nonce, alice.address, 'avatar', clock);
    // Stopped: a nonce expiring now is no longer swept.
    await store.issue(alice.address, 'avatar', clock);
    clock = new Date(clock.getTime() + 5 * TTL);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count()).toBe(2);
  });

  it('logs a failed sweep and keeps going; 0 disables it', async () => {
    const { logger, lines } = recordingLogger();
    let calls = 0;
    const failing = {
      sweepExpired: async () => {
        calls += 1;
        throw new Error(`sweep ${calls} failed`);
      },
    };
    const stop = startNonceSweeper(failing, 10, logger);
    await until(async () => calls >= 2);
    await stop();
    expect(
      lines.filter((l) => l.level === 'error' && l.msg === 'periodic task failed').length,
    ).toBeGreaterThan(1);

    const off = startNonceSweeper(failing, 0, logger);
    const before = calls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    await off();
    expect(calls).toBe(before);
    expect(() => startNonceSweeper(failing, -1, logger)).toThrow(RangeError);
  });
});
