import type { DatabaseHandle } from '@nrp/db';
import { ProblemError } from '@nrp/validation';
import { createNonceStore, type NonceTables, type PgNonceStore } from '../src';
import { alice, bob, expectRejection, openNonceDatabase } from './support';

const TTL = 5 * 60_000;
const t0 = new Date('2026-11-22T10:00:00.000Z');

let handle: DatabaseHandle<NonceTables>;
let store: PgNonceStore;

beforeAll(async () => {
  handle = await openNonceDatabase();
  store = createNonceStore(handle.db, { ttlMs: TTL });
});

afterAll(async () => {
  await handle.close();
});

describe('issue', () => {
  it('returns a random alphanumeric nonce of at least 16 characters that expires after the ttl', async () => {
    const a = await store.issue(alice.address, 'avatar', t0);
    const b = await store.issue(alice.address, 'avatar', t0);
    expect(a.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.expiresAt).toBe(t0.getTime() + TTL);
  });

  it('stores the address in lower case, with its scope and expiry', async () => {
    const { nonce } = await store.issue(alice.address, 'avatar+header', t0);
    const row = await handle.db
      .selectFrom('auth_nonces')
      .selectAll()
      .where('nonce', '=', nonce)
      .executeTakeFirstOrThrow();
    expect(row.address).toBe(alice.address.toLowerCase());
    expect(row.scope).toBe('avatar+header');
    expect(new Date(row.expires_at).getTime()).toBe(t0.getTime() + TTL);
    expect(row.used_at).toBeNull();
  });

  it('refuses a malformed address or scope with a 400', async () => {
    await expectRejection(store.issue('0x1234', 'avatar'), 'INVALID_INPUT', /not an Ethereum address/, 400);
    await expectRejection(
      store.issue(alice.address, 'avatar+'),
      'INVALID_INPUT',
      /not a valid nonce scope/,
      400,
    );
  });
});

describe('consume', () => {
  it('is single-use: the second consume is INVALID_NONCE (already used)', async () => {
    const { nonce } = await store.issue(alice.address, 'avatar', t0);
    await expect(store.consume(nonce, alice.address, 'avatar', t0)).resolves.toBeUndefined();
    await expectRejection(store.consume(nonce, alice.address, 'avatar', t0), 'INVALID_NONCE', /already used/);
  });

  it('binds the nonce to the address case-insensitively', async () => {
    const { nonce } = await store.issue(alice.address.toLowerCase(), 'avatar', t0);
    await expect(
      store.consume(nonce, alice.address.toUpperCase().replace('0X', '0x'), 'avatar', t0),
    ).resolves.toBe(undefined);
  });

  it('refuses an unknown nonce', async () => {
    await expectRejection(
      store.consume('NeverIssued0123456789', alice.address, 'avatar', t0),
      'INVALID_NONCE',
      /unknown/,
    );
  });

  it('refuses a nonce issued to another address, and leaves it usable by its owner', async () => {
    const { nonce } = await store.issue(alice.address, 'avatar', t0);
    await expectRejection(
      store.consume(nonce, bob.address, 'avatar', t0),
      'INVALID_NONCE',
      /another address/,
    );
    await store.consume(nonce, alice.address, 'avatar', t0);
  });

  it('refuses an expired nonce (EXPIRED_NONCE) at exactly its expiry, and accepts it 1 ms before', async () => {
    const { nonce, expiresAt } = await store.issue(alice.address, 'avatar', t0);
    await expectRejection(
      store.consume(nonce, alice.address, 'avatar', new Date(expiresAt)),
      'EXPIRED_NONCE',
      /expired at 2026-11-22T10:05:00.000Z/,
    );
    await store.consume(nonce, alice.address, 'avatar', new Date(expiresAt - 1));
  });

  it('applies the scope rule: avatar+header allows avatar and header; header does not allow avatar', async () => {
    const both = await store.issue(alice.address, 'avatar+header', t0);
    await store.consume(both.nonce, alice.address, 'avatar', t0);
    const both2 = await store.issue(alice.address, 'avatar+header', t0);
    await store.consume(both2.nonce, alice.address, 'header', t0);
    const both3 = await store.issue(alice.address, 'header+avatar', t0);
    await store.consume(both3.nonce, alice.address, 'avatar+header', t0);

    const header = await store.issue(alice.address, 'header', t0);
    await expectRejection(
      store.consume(header.nonce, alice.address, 'avatar', t0),
      'NONCE_SCOPE_MISMATCH',
      /issued for scope "header", which does not allow "avatar"/,
    );
    await expectRejection(
      store.consume(header.nonce, alice.address, 'avatar+header', t0),
      'NONCE_SCOPE_MISMATCH',
    );
    await expectRejection(store.consume(header.nonce, alice.address, '', t0), 'NONCE_SCOPE_MISMATCH');
    // None of the refusals used it up.
    await store.consume(header.nonce, alice.address, 'header', t0);
  });

  it('reports a used nonce as used even when it has expired since', async () => {
    const { nonce, expiresAt } = await store.issue(alice.address, 'avatar', t0);
    await store.consume(nonce, alice.address, 'avatar', t0);
    await expectRejection(
      store.consume(nonce, alice.address, 'avatar', new Date(expiresAt + 1)),
      'INVALID_NONCE',
      /already used/,
    );
  });

  it('lets exactly one of many concurrent consumers of the same nonce succeed', async () => {
    for (let round = 0; round < 5; round++) {
      const { nonce } = await store.issue(alice.address, 'avatar', t0);
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => store.consume(nonce, alice.address, 'avatar', t0)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') {
          expect(r.reason).toBeInstanceOf(ProblemError);
          expect((r.reason as ProblemError).code).toBe('INVALID_NONCE');
        }
      }
    }
  });
});

describe('sweepExpired', () => {
  it('deletes the nonces expired at `now` and keeps the live ones', async () => {
    const later = new Date(t0.getTime() + 24 * 3600_000);
    await store.sweepExpired(new Date(later.getTime() + TTL)); // start from an empty table
    const old = await store.issue(alice.address, 'avatar', later);
    const fresh = await store.issue(alice.address, 'avatar', new Date(later.getTime() + 60_000));
    expect(await store.sweepExpired(new Date(old.expiresAt))).toBe(1);
    await expectRejection(
      store.consume(old.nonce, alice.address, 'avatar', later),
      'INVALID_NONCE',
      /unknown/,
    );
    await store.consume(fresh.nonce, alice.address, 'avatar', new Date(old.expiresAt));
  });
});

describe('custom table', () => {
  it('works on a table named by the service, created by nonceMigration(table)', async () => {
    const own = await openNonceDatabase('mint_nonces');
    try {
      const mintStore = createNonceStore(own.db, { table: 'mint_nonces', ttlMs: 1000 });
      const { nonce } = await mintStore.issue(bob.address, 'listing', t0);
      await expectRejection(mintStore.consume(nonce, bob.address, 'avatar', t0), 'NONCE_SCOPE_MISMATCH');
      await mintStore.consume(nonce, bob.address, 'listing', t0);
      const { count } = await own.db
        .selectFrom('mint_nonces' as 'auth_nonces')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(count)).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => createNonceStore(handle.db, { table: 'x; drop table y', ttlMs: 1000 })).toThrow(RangeError);
    expect(() => createNonceStore(handle.db, { ttlMs: 0 })).toThrow(RangeError);
  });
});
