import request from 'supertest';
import { NONCE_TABLE } from '../src/data/schema';
import { startEnsChain, startMetadataService, walletOf, type MetadataService } from './support';
import type { EnsChain } from '@nrp/testkit';

describe('metadata-svc nonce sweep (NONCE_SWEEP_INTERVAL_MS)', () => {
  let chain: EnsChain;
  let h: MetadataService;
  beforeAll(async () => {
    chain = await startEnsChain({ chainId: 11155111 });
    h = await startMetadataService(chain, { NONCE_TTL_MS: '60000', NONCE_SWEEP_INTERVAL_MS: '25' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  const count = async () =>
    Number(
      (
        await h.db.db
          .selectFrom(NONCE_TABLE)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('deletes expired nonces in the background and keeps live ones', async () => {
    await request(h.app)
      .post('/auth/nonce')
      .send({ address: walletOf(chain, 1).address })
      .expect(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count()).toBe(1);
    h.advance(61_000);
    const deadline = Date.now() + 5000;
    while ((await count()) !== 0) {
      if (Date.now() > deadline) throw new Error('the expired nonce was not swept');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
