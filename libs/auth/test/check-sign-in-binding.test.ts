import { ProblemError } from '@nrp/validation';
import type { DatabaseHandle } from '@nrp/db';
import {
  checkSignInBinding,
  createNonceStore,
  parseSignInMessage,
  verifySignIn,
  type NonceTables,
  type PgNonceStore,
  type SignInBinding,
  type SignInMessage,
} from '../src';
import { alice, CHAIN_ID, DOMAIN, expectRejection, openNonceDatabase, siweMessage } from './support';

const BASE = 'https://meta.example.com';
const demoAvatar = `${BASE}/profile/sepolia/demo.eth/avatar`;
const wrappedAvatar = `${BASE}/profile/sepolia/wrapped.eth/avatar`;
const now = new Date('2026-11-22T10:00:00.000Z');

const binding = (operation = 'delete', resource = wrappedAvatar): SignInBinding => ({
  resource,
  operation,
  operations: ['upload', 'delete'],
  serviceUrl: BASE,
});

function message(fields: { uri?: string; statement?: string; resources?: string[] }): SignInMessage {
  const text = siweMessage({
    address: alice.address,
    nonce: 'abcdefgh12345678',
    issuedAt: now,
    statement: 'Manage my profile images.',
    ...fields,
  });
  const parsed = parseSignInMessage(text);
  return fields.uri === undefined ? parsed : { ...parsed, uri: fields.uri };
}

function refusal(fields: Parameters<typeof message>[0], bindTo = binding()): string {
  try {
    checkSignInBinding(message(fields), bindTo);
  } catch (err) {
    if (err instanceof ProblemError && err.code === 'RESOURCE_MISMATCH' && err.status === 401)
      return err.message;
    throw err;
  }
  throw new Error('the message was accepted');
}

describe('checkSignInBinding', () => {
  it('lets a message without Resources and with a URI outside the namespace through (the contract layout)', () => {
    expect(() => checkSignInBinding(message({ statement: 'Upload an avatar.' }), binding())).not.toThrow();
    expect(() =>
      checkSignInBinding(
        message({ uri: 'https://app.example.com/profile/sepolia/demo.eth/avatar' }),
        binding(),
      ),
    ).not.toThrow();
  });

  it("refuses demo.eth's upload message for deleting wrapped.eth's avatar", () => {
    const demoUpload = {
      uri: demoAvatar,
      statement: 'Upload the avatar of demo.eth on sepolia.',
      resources: [demoAvatar],
    };
    expect(refusal(demoUpload)).toContain(wrappedAvatar);
    // The same message on its own image, but for another operation.
    expect(refusal(demoUpload, binding('delete', demoAvatar))).toMatch(
      /statement is for "upload", not "delete"/,
    );
    expect(() => checkSignInBinding(message(demoUpload), binding('upload', demoAvatar))).not.toThrow();
  });

  it('binds through Resources alone, through the URI alone, and through a #operation fragment', () => {
    expect(refusal({ resources: [demoAvatar] })).toContain(`resource ${demoAvatar} is not`);
    expect(refusal({ resources: ['https://app.example.com/terms'] })).toContain('do not name');
    expect(refusal({ uri: demoAvatar })).toContain(`URI ${demoAvatar}`);
    expect(refusal({ resources: [`${wrappedAvatar}#upload`] })).toMatch(/operation "upload", not "delete"/);
    for (const accepted of [
      { resources: [wrappedAvatar] },
      { resources: [`${wrappedAvatar}#delete`, 'https://app.example.com/terms'] },
      { uri: wrappedAvatar, statement: 'Manage my profile images.' },
      // With a trailing slash it is the same URL.
      { resources: [`${wrappedAvatar}/`] },
      { resources: [wrappedAvatar], statement: 'Upload or delete the avatar of wrapped.eth.' },
    ]) {
      expect(() => checkSignInBinding(message(accepted), binding())).not.toThrow();
    }
  });

  it('refuses dot segments and encoded dots or slashes in a URI or resource, whatever they resolve to', () => {
    for (const path of [
      '/profile/sepolia/demo.eth/%2e%2e/wrapped.eth/avatar',
      '/profile/sepolia/demo.eth/%2E./wrapped.eth/avatar',
      '/profile/sepolia/demo.eth/../wrapped.eth/avatar',
      '/profile/sepolia/./wrapped.eth/avatar',
      '/profile/sepolia/wrapped%2Eeth/avatar',
      '/profile/sepolia/demo.eth%2F..%2Fwrapped.eth/avatar',
    ]) {
      expect(refusal({ uri: `${BASE}${path}` })).toMatch(/dot segments/);
      expect(refusal({ resources: [`${BASE}${path}`] })).toMatch(/dot segments/);
      // Even outside the namespace: the message must read as what it names.
      expect(refusal({ uri: `https://app.example.com${path}` })).toMatch(/dot segments/);
    }
    // A percent sign that decodes to nothing is refused too (the grammar parser refuses it in Resources).
    expect(refusal({ uri: `${BASE}/profile/sepolia/wrapped.eth/avatar/%` })).toMatch(/dot segments/);
    // Dots inside a segment are fine.
    expect(() => checkSignInBinding(message({ uri: wrappedAvatar }), binding())).not.toThrow();
    // In the query they are not path segments (the query makes it another resource, refused as such).
    expect(refusal({ resources: [`${wrappedAvatar}?v=..`] })).not.toMatch(/dot segments/);
  });

  it('refuses a message naming this image and another one of the service', () => {
    expect(refusal({ resources: [wrappedAvatar, demoAvatar] })).toContain(`resource ${demoAvatar}`);
    expect(refusal({ resources: [wrappedAvatar, `${BASE}/profile/sepolia/wrapped.eth/header`] })).toContain(
      'header',
    );
  });
});

describe('verifySignIn with a binding', () => {
  let handle: DatabaseHandle<NonceTables>;
  let nonces: PgNonceStore;
  beforeAll(async () => {
    handle = await openNonceDatabase();
    nonces = createNonceStore(handle.db, { ttlMs: 60_000 });
  });
  afterAll(() => handle.close());

  it('refuses a mismatch before the nonce is consumed, so the nonce still signs the request it names', async () => {
    const { nonce } = await nonces.issue(alice.address, 'avatar', now);
    const text = siweMessage({ address: alice.address, nonce, issuedAt: now, resources: [demoAvatar] });
    const request = { message: text, signature: await alice.signMessage(text), address: alice.address };
    const context = { domains: [DOMAIN], chainId: CHAIN_ID, scope: 'avatar', nonces, now };
    await expectRejection(
      verifySignIn(request, { ...context, binding: binding('upload', wrappedAvatar) }),
      'RESOURCE_MISMATCH',
    );
    await expect(
      verifySignIn(request, { ...context, binding: binding('upload', demoAvatar) }),
    ).resolves.toMatchObject({ nonce });
  });
});
