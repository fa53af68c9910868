import request from 'supertest';
import { createTestClock, createTestDatabase, startTestService } from '@nrp/testkit';
import { configSchema } from '../src/config';
import { NONCE_TABLE, type MintDatabase } from '../src/data/schema';
import { createService } from '../src/service';

describe('mint-svc nonce sweep (NONCE_SWEEP_INTERVAL_MS)', () => {
  it('deletes expired nonces in the background, keeps live ones, and stops on shutdown', async () => {
    const db = await createTestDatabase<MintDatabase>();
    const clock = createTestClock();
    const service = await startTestService({
      createService,
      configSchema,
      env: {
        SIGNER_PRIVATE_KEY: '0x' + '22'.repeat(32),
        MAINNET_RPC_URL: 'http://127.0.0.1:9',
        SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
        NONCE_TTL_MS: '60000',
        NONCE_SWEEP_INTERVAL_MS: '25',
      },
      overrides: { database: db, now: clock.now },
      handedIn: [db],
    });
    const count = async () =>
      Number(
        (
          await db.db
            .selectFrom(NONCE_TABLE)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    try {
      const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
      await request(service.app).post('/api/v1/auth/nonce').send({ address, scope: 'listing' }).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await count()).toBe(1); // live: kept
      clock.advance(61_000);
      const deadline = Date.now() + 5000;
      while ((await count()) !== 0) {
        if (Date.now() > deadline) throw new Error('the expired nonce was not swept');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await service.close();
    }
  });
});
