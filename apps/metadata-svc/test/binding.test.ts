/**
 * Messages bound to one image: a message whose Resources (or URI) name an image of this service is accepted only for
 * that image and operation; a message in the contract's layout (no Resources, a URI elsewhere) keeps working.
 */
import request from 'supertest';
import type { Wallet } from 'ethers';
import { imageSignInMessage } from '@nrp/client';
import { buildSignInMessage, signSignInMessage, type EnsChain } from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  imageRows,
  issueSignInNonce,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  upload,
  walletOf,
  BASE_URL,
  DOMAIN,
  type MetadataService,
} from './support';

let chain: EnsChain;
let h: MetadataService;
let alice: Wallet;
let app: MetadataService['app'];
let image: Buffer;

const url = (name: string) => stableImageUrl(BASE_URL, 'sepolia', name, 'avatar');
const path = (name: string, kind = 'avatar') => `/profile/sepolia/${name}/${kind}`;

/** A fresh nonce and the client helper's message bound to `operation` of `name`'s `kind`, signed by alice. */
async function bound(name: string, operation: 'upload' | 'delete', kind: 'avatar' | 'header' = 'avatar') {
  const nonce = await issueSignInNonce(app, alice.address, 'avatar+header');
  const message = imageSignInMessage({
    serviceUrl: BASE_URL,
    domain: DOMAIN,
    address: alice.address,
    nonce,
    network: 'sepolia',
    subname: name,
    kind,
    operation,
  });
  return {
    siweMessage: message,
    siweSignature: await signSignInMessage(alice, message),
    address: alice.address,
  };
}

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  h = await startMetadataService(chain);
  app = h.app;
  alice = walletOf(chain, 1);
  const bob = walletOf(chain, 2);
  image = await png();
  await chain.ens.registerEthName('demo', alice.address);
  await chain.ens.setText('demo.eth', 'avatar', url('demo.eth'));
  // wrapped.eth: the same signer owns it through the NameWrapper.
  await chain.ens.registerEthName('wrapped', bob.address);
  await chain.ens.wrapName('wrapped.eth', alice.address);
  await chain.ens.setResolver('wrapped.eth', chain.contracts.publicResolver);
  await chain.ens.setText('wrapped.eth', 'avatar', url('wrapped.eth'));
}, 120_000);

afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

describe('messages bound to one image', () => {
  it('accepts a bound message for its own upload, and an unbound message as before', async () => {
    const own = await upload(app, path('demo.eth'), 'avatar', image, await bound('demo.eth', 'upload'));
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ subname: 'demo.eth', avatarUrl: url('demo.eth') });
    const unbound = await signedFields(app, alice, { scope: 'avatar' });
    await upload(app, path('wrapped.eth'), 'avatar', image, unbound).expect(200);
    await request(app).get(path('wrapped.eth')).expect(200);
  });

  it("refuses demo.eth's avatar-upload message for deleting wrapped.eth's avatar (401 RESOURCE_MISMATCH)", async () => {
    const demoUpload = await bound('demo.eth', 'upload');
    const res = await request(app)
      .delete(path('wrapped.eth'))
      .send(demoUpload)
      .expect(401)
      .expect('Content-Type', /application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'RESOURCE_MISMATCH', status: 401 });
    expect(res.body.detail).toContain(url('wrapped.eth'));
    // Nothing was deleted; the message still uploads the image it names (its nonce was not used up).
    await request(app).get(path('wrapped.eth')).expect(200);
    expect((await imageRows(h.db)).filter((r) => r.name === 'wrapped.eth')).toHaveLength(1);
    await upload(app, path('demo.eth'), 'avatar', image, demoUpload).expect(200);
  });

  it('refuses a bound message for another operation or kind of the same name, and accepts its own delete', async () => {
    const uploadOfDemo = await bound('demo.eth', 'upload');
    const asDelete = await request(app).delete(path('demo.eth')).send(uploadOfDemo).expect(401);
    expect(asDelete.body.code).toBe('RESOURCE_MISMATCH');
    const headerOfDemo = await bound('demo.eth', 'upload', 'header');
    const asAvatar = await upload(app, path('demo.eth'), 'avatar', image, headerOfDemo).expect(401);
    expect(asAvatar.body.code).toBe('RESOURCE_MISMATCH');
    await request(app).get(path('demo.eth')).expect(200);

    await request(app)
      .delete(path('demo.eth'))
      .send(await bound('demo.eth', 'delete'))
      .expect(200);
    await request(app).get(path('demo.eth')).expect(404);
  });

  it('refuses a URI that reads as demo.eth but normalises to wrapped.eth (%2e%2e): 401, nothing deleted', async () => {
    await upload(app, path('wrapped.eth'), 'avatar', image, await bound('wrapped.eth', 'upload')).expect(200);
    const rowsBefore = await imageRows(h.db);
    for (const disguised of [
      `${BASE_URL}/profile/sepolia/demo.eth/%2e%2e/wrapped.eth/avatar`,
      `${BASE_URL}/profile/sepolia/demo.eth/.%2E/wrapped.eth/avatar`,
      `${BASE_URL}/profile/sepolia/demo.eth/../wrapped.eth/avatar`,
      `${BASE_URL}/profile/sepolia/wrapped%2eeth/avatar`,
    ]) {
      const nonce = await issueSignInNonce(app, alice.address, 'avatar+header');
      const message = buildSignInMessage({
        domain: DOMAIN,
        address: alice.address,
        statement: 'Delete the avatar of demo.eth.',
        uri: disguised,
        chainId: 11155111,
        nonce,
      });
      const res = await request(app)
        .delete(path('wrapped.eth'))
        .send({
          siweMessage: message,
          siweSignature: await signSignInMessage(alice, message),
          address: alice.address,
        })
        .expect(401)
        .expect('Content-Type', /application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'RESOURCE_MISMATCH', status: 401 });
      expect(res.body.detail).toMatch(/dot segments/);
    }
    expect(await imageRows(h.db)).toEqual(rowsBefore);
    await request(app).get(path('wrapped.eth')).expect(200);
  });

  it('one rule with mint-svc: a URI anywhere on this service binds the message; one elsewhere keeps it unbound', async () => {
    await upload(app, path('wrapped.eth'), 'avatar', image, await bound('wrapped.eth', 'upload')).expect(200);
    const rowsBefore = await imageRows(h.db);
    const signed = async (uri: string) => {
      const nonce = await issueSignInNonce(app, alice.address, 'avatar+header');
      const message = buildSignInMessage({
        domain: DOMAIN,
        address: alice.address,
        statement: 'Manage my profile images.',
        uri,
        chainId: 11155111,
        nonce,
      });
      return {
        siweMessage: message,
        siweSignature: await signSignInMessage(alice, message),
        address: alice.address,
      };
    };
    // The service's own root is a URL of the service, not of this image: it names another request.
    const root = await request(app)
      .delete(path('wrapped.eth'))
      .send(await signed(`${BASE_URL}/`))
      .expect(401);
    expect(root.body.code).toBe('RESOURCE_MISMATCH');
    expect(await imageRows(h.db)).toEqual(rowsBefore);
    // A URI of another site (the contract's layout) binds nothing: each name of its signer, once.
    await request(app)
      .delete(path('wrapped.eth'))
      .send(await signed(`https://${DOMAIN}/profile`))
      .expect(200);
  });

  it("a message the grammar refuses without naming a line answers 401 without the parser's state", async () => {
    const nonce = await issueSignInNonce(app, alice.address, 'avatar+header');
    const message = `${buildSignInMessage({
      domain: DOMAIN,
      address: alice.address,
      statement: 'Delete my avatar.',
      uri: url('wrapped.eth'),
      chainId: 11155111,
      nonce,
    })}\nResources:\n- ${url('wrapped.eth')}/%`;
    const res = await request(app)
      .delete(path('wrapped.eth'))
      .send({
        siweMessage: message,
        siweSignature: await signSignInMessage(alice, message),
        address: alice.address,
      })
      .expect(401)
      .expect('Content-Type', /application\/problem\+json/);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    expect(res.body.detail).toBe(
      'The sign-in message does not parse as EIP-4361: the text does not follow the EIP-4361 grammar.',
    );
    expect(JSON.stringify(res.body)).not.toMatch(/state|maxMatched|success/);
  });

  it('lists RESOURCE_MISMATCH in /docs/errors and on the signed routes of the OpenAPI document', async () => {
    const errors = await request(app).get('/docs/errors').expect(200);
    expect(JSON.stringify(errors.body)).toContain('RESOURCE_MISMATCH');
    const openapi = await request(app).get('/openapi.json').expect(200);
    const deletion = JSON.stringify(openapi.body.paths['/profile/{network}/{subname}/avatar'].delete);
    expect(deletion).toContain('RESOURCE_MISMATCH');
  });
});
