import type { DatabaseHandle } from '@nrp/db';
import { createNonceStore, verifySignedFields, type NonceTables, type PgNonceStore } from '../src';
import { alice, bob, CHAIN_ID, DOMAIN, expectRejection, openNonceDatabase, siweMessage } from './support';

const now = new Date('2026-11-22T10:00:00.000Z');
let handle: DatabaseHandle<NonceTables>;
let nonces: PgNonceStore;

beforeAll(async () => {
  handle = await openNonceDatabase();
  nonces = createNonceStore(handle.db, { ttlMs: 60_000 });
});
afterAll(() => handle.close());

async function fields(scope = 'listing', signer = alice, chainId = CHAIN_ID) {
  const { nonce } = await nonces.issue(signer.address, scope, now);
  const siweMessage_ = siweMessage({ address: signer.address, nonce, issuedAt: now, chainId });
  return {
    siweMessage: siweMessage_,
    siweSignature: await signer.signMessage(siweMessage_),
    address: signer.address,
  };
}

const context = (scope = 'listing') => ({ domains: [DOMAIN], chainId: CHAIN_ID, scope, nonces, now });

describe('verifySignedFields', () => {
  it('maps siweMessage/siweSignature/address onto a sign-in and consumes the nonce once', async () => {
    const request = await fields();
    await expect(verifySignedFields(request, context())).resolves.toMatchObject({
      address: alice.address,
      chainId: CHAIN_ID,
      domain: DOMAIN,
    });
    await expectRejection(verifySignedFields(request, context()), 'INVALID_NONCE', /already used/);
  });

  it('keeps the service context: scope, chain id of the network, domains, and the claimed address', async () => {
    await expectRejection(
      verifySignedFields(await fields('minter'), context('listing')),
      'NONCE_SCOPE_MISMATCH',
    );
    await expectRejection(verifySignedFields(await fields('listing', alice, 1), context()), 'CHAIN_MISMATCH');
    await expectRejection(
      verifySignedFields(await fields(), { ...context(), domains: ['elsewhere.example'] }),
      'DOMAIN_MISMATCH',
    );
    await expectRejection(
      verifySignedFields({ ...(await fields()), address: bob.address }, context()),
      'ADDRESS_MISMATCH',
    );
  });
});
