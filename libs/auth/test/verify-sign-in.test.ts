import type { DatabaseHandle } from '@nrp/db';
import { ProblemError } from '@nrp/validation';
import {
  createNonceStore,
  parseSignInMessage,
  verifySignIn,
  type NonceTables,
  type PgNonceStore,
  type SignInContext,
} from '../src';
import {
  alice,
  bob,
  CHAIN_ID,
  DOMAIN,
  expectRejection,
  openNonceDatabase,
  siweMessage,
  viemMessage,
  type MessageFields,
} from './support';

const TTL = 5 * 60_000;
const now = new Date('2026-11-22T10:00:00.000Z');
const at = (offsetMs: number): Date => new Date(now.getTime() + offsetMs);

let handle: DatabaseHandle<NonceTables>;
let nonces: PgNonceStore;
let ctx: SignInContext;

beforeAll(async () => {
  handle = await openNonceDatabase();
  nonces = createNonceStore(handle.db, { ttlMs: TTL });
  ctx = { domains: ['other.example.org', DOMAIN], chainId: CHAIN_ID, scope: 'avatar', nonces, now };
});

afterAll(async () => {
  await handle.close();
});

const builders = { siwe: siweMessage, viem: viemMessage } as const;

async function signedRequest(
  fields: Partial<MessageFields> = {},
  build: (f: MessageFields) => string = siweMessage,
  signer = alice,
) {
  const nonce = fields.nonce ?? (await nonces.issue(signer.address, 'avatar+header', now)).nonce;
  const message = build({ address: signer.address, issuedAt: now, ...fields, nonce });
  return { message, signature: await signer.signMessage(message), address: signer.address };
}

/** After a refused request, the same nonce must still sign in: a bad request never burns a good nonce. */
async function expectNonceStillUsable(nonce: string): Promise<void> {
  const good = await signedRequest({ nonce });
  await expect(verifySignIn(good, ctx)).resolves.toMatchObject({ nonce });
}

describe.each(Object.entries(builders))('happy path with a message built by %s', (_name, build) => {
  it('verifies, returns the checksummed address and consumes the nonce', async () => {
    const request = await signedRequest(
      {
        statement: 'Sign in to upload an avatar.',
        expirationTime: at(10 * 60_000),
        notBefore: at(-60_000),
        requestId: 'req-1',
        resources: ['https://app.example.com/profile/sepolia/alice.eth/avatar'],
      },
      build,
    );
    const result = await verifySignIn({ ...request, address: request.address.toLowerCase() }, ctx);
    expect(result).toEqual({
      address: alice.address,
      chainId: CHAIN_ID,
      nonce: expect.stringMatching(/^[A-Za-z0-9]{16,}$/),
      domain: DOMAIN,
      uri: `https://${DOMAIN}/profile`,
      issuedAt: now,
      expirationTime: at(10 * 60_000),
      signatureKind: 'eoa',
    });
    // Single use: the very same request again is a replay.
    await expectRejection(verifySignIn(request, ctx), 'INVALID_NONCE', /already used/);
  });

  it('accepts the minimal message of the spec (no optional fields)', async () => {
    const request = await signedRequest({}, build);
    await expect(verifySignIn(request, ctx)).resolves.toMatchObject({
      address: alice.address,
      signatureKind: 'eoa',
    });
  });
});

describe('INVALID_SIGNATURE', () => {
  it('refuses a signature made by another key, without burning the nonce', async () => {
    const request = await signedRequest();
    const forged = { ...request, signature: await bob.signMessage(request.message) };
    await expectRejection(verifySignIn(forged, ctx), 'INVALID_SIGNATURE', /not valid for 0xf39F/);
    await expect(verifySignIn(request, ctx)).resolves.toMatchObject({ address: alice.address });
  });

  it('refuses a signature over a different message (tampered statement)', async () => {
    const request = await signedRequest();
    const tampered = {
      ...request,
      message: request.message.replace('Upload an avatar.', 'Upload anything.'),
    };
    await expectRejection(verifySignIn(tampered, ctx), 'INVALID_SIGNATURE', /signature is not valid/);
  });

  it('refuses a malformed signature', async () => {
    const request = await signedRequest();
    for (const signature of ['', '0x', 'not-hex', `0x${'11'.repeat(65)}`]) {
      await expectRejection(
        verifySignIn({ ...request, signature }, ctx),
        'INVALID_SIGNATURE',
        /signature is not valid/,
      );
    }
  });

  it('refuses a message that does not parse, saying so', async () => {
    const signature = await alice.signMessage('hello');
    await expectRejection(
      verifySignIn({ message: 'hello', signature, address: alice.address }, ctx),
      'INVALID_SIGNATURE',
      /does not parse as EIP-4361/,
    );
  });

  it('refuses a message whose address is not EIP-55 checksummed, as not parsing', async () => {
    const request = await signedRequest();
    const message = request.message.replace(alice.address, alice.address.toLowerCase());
    await expectRejection(
      verifySignIn({ ...request, message, signature: await alice.signMessage(message) }, ctx),
      'INVALID_SIGNATURE',
      /does not parse as EIP-4361: line 2: invalid EIP-55 address/,
    );
  });

  it('refuses an oversized message before parsing it', async () => {
    const request = await signedRequest({ statement: 'x'.repeat(9000) });
    await expectRejection(verifySignIn(request, ctx), 'INVALID_SIGNATURE', /longer than 8192/);
  });
});

describe('INVALID_NONCE', () => {
  it('refuses a nonce that was never issued', async () => {
    const request = await signedRequest({ nonce: 'NeverIssuedNonce12345' });
    await expectRejection(verifySignIn(request, ctx), 'INVALID_NONCE', /unknown/);
  });

  it('refuses a replayed (used) nonce', async () => {
    const request = await signedRequest();
    await verifySignIn(request, ctx);
    await expectRejection(verifySignIn(request, ctx), 'INVALID_NONCE', /already used/);
  });

  it('refuses a nonce issued to another address', async () => {
    const { nonce } = await nonces.issue(bob.address, 'avatar', now);
    const request = await signedRequest({ nonce });
    await expectRejection(verifySignIn(request, ctx), 'INVALID_NONCE', /another address/);
  });

  it('lets exactly one of concurrent identical sign-ins through', async () => {
    const request = await signedRequest();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => verifySignIn(request, ctx)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as ProblemError).code] : []));
    expect(codes).toEqual(Array(5).fill('INVALID_NONCE'));
  });
});

describe('EXPIRED_NONCE', () => {
  it('refuses a nonce past its lifetime (injected now), and accepts it just before', async () => {
    const { nonce, expiresAt } = await nonces.issue(alice.address, 'avatar', now);
    const request = await signedRequest({ nonce });
    await expectRejection(
      verifySignIn(request, { ...ctx, now: new Date(expiresAt) }),
      'EXPIRED_NONCE',
      /expired at/,
    );
    await expect(verifySignIn(request, { ...ctx, now: new Date(expiresAt - 1) })).resolves.toMatchObject({
      nonce,
    });
  });
});

describe('NONCE_SCOPE_MISMATCH', () => {
  it('refuses a header nonce for an avatar operation, without burning it', async () => {
    const { nonce } = await nonces.issue(alice.address, 'header', now);
    const request = await signedRequest({ nonce });
    await expectRejection(verifySignIn(request, ctx), 'NONCE_SCOPE_MISMATCH', /"header".*"avatar"/);
    await expect(verifySignIn(request, { ...ctx, scope: 'header' })).resolves.toMatchObject({ nonce });
  });
});

describe('ADDRESS_MISMATCH', () => {
  it("refuses an address field that is not the message's address", async () => {
    const request = await signedRequest();
    await expectRejection(
      verifySignIn({ ...request, address: bob.address }, ctx),
      'ADDRESS_MISMATCH',
      /0x7099/,
    );
    await expectNonceStillUsable(request.message.match(/Nonce: (\w+)/)?.[1] ?? '');
  });
});

describe('CHAIN_MISMATCH', () => {
  it('refuses a message for another chain (mainnet message, sepolia path)', async () => {
    const request = await signedRequest({ chainId: 1 });
    await expectRejection(
      verifySignIn(request, ctx),
      'CHAIN_MISMATCH',
      /chain id 1 is not this network's chain id 11155111/,
    );
  });
});

describe('DOMAIN_MISMATCH', () => {
  it('refuses a domain that is not configured', async () => {
    const request = await signedRequest({ domain: 'evil.example.com' });
    await expectRejection(verifySignIn(request, ctx), 'DOMAIN_MISMATCH', /"evil.example.com"/);
  });

  it('compares host and port: another port is another domain', async () => {
    const withPort = { ...ctx, domains: ['localhost:3000'] };
    const wrongPort = await signedRequest({ domain: 'localhost:3001' });
    await expectRejection(verifySignIn(wrongPort, withPort), 'DOMAIN_MISMATCH');
    const noPort = await signedRequest({ domain: 'localhost' });
    await expectRejection(verifySignIn(noPort, withPort), 'DOMAIN_MISMATCH');
  });

  it('refuses a domain with user info, whose host is an accepted domain, and leaves the nonce usable', async () => {
    const withPort = { ...ctx, domains: ['localhost:3001'] };
    const request = await signedRequest({ domain: 'evil@localhost:3001' });
    await expectRejection(verifySignIn(request, withPort), 'DOMAIN_MISMATCH', /carries user info/);
    await expectNonceStillUsable(parseSignInMessage(request.message).nonce);
  });

  it('compares case-insensitively and accepts a configured URL', async () => {
    const request = await signedRequest({ domain: 'LocalHost:3000' });
    await expect(
      verifySignIn(request, { ...ctx, domains: ['https://localhost:3000/'] }),
    ).resolves.toMatchObject({ domain: 'LocalHost:3000' });
  });
});

describe('MESSAGE_EXPIRED', () => {
  it('refuses a message whose Expiration Time has passed (injected now)', async () => {
    const request = await signedRequest({ expirationTime: at(60_000) });
    await expectRejection(
      verifySignIn(request, { ...ctx, now: at(60_000) }),
      'MESSAGE_EXPIRED',
      /Expiration Time 2026-11-22T10:01:00.000Z has passed/,
    );
    await expect(verifySignIn(request, { ...ctx, now: at(59_999) })).resolves.toBeDefined();
  });

  it('refuses a message before its Not Before', async () => {
    const request = await signedRequest({ notBefore: at(5 * 60_000) });
    await expectRejection(
      verifySignIn(request, ctx),
      'MESSAGE_EXPIRED',
      /Not Before .* has not been reached/,
    );
    await expectNonceStillUsable(request.message.match(/Nonce: (\w+)/)?.[1] ?? '');
  });

  it('refuses Issued At more than the clock skew in the future, and tolerates it within', async () => {
    const tooEarly = await signedRequest({ issuedAt: at(61_000) });
    await expectRejection(
      verifySignIn(tooEarly, ctx),
      'MESSAGE_EXPIRED',
      /Issued At .* more than 60 s in the future/,
    );
    await expectRejection(
      verifySignIn(await signedRequest({ issuedAt: at(11_000) }), { ...ctx, clockSkewSeconds: 10 }),
      'MESSAGE_EXPIRED',
      /more than 10 s/,
    );
    await expect(verifySignIn(await signedRequest({ issuedAt: at(60_000) }), ctx)).resolves.toBeDefined();
  });
});
