/**
 * Self-serve onboarding against the real ENS contracts on anvil: sign-in sessions, API keys that follow on-chain
 * control of their name, descendants, and the setup transactions of a parent name.
 */
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { Wallet, getAddress } from 'ethers';
import { namehash } from '@nrp/ens';
import { createTestClock, type TestClock } from '@nrp/testkit/src/test-service';
import { startEnsChain, type EnsChain } from '@nrp/testkit/src/ens-fixture';
import { devChainEnv } from '@nrp/testkit/src/chain-env';
import { buildSignInMessage } from '@nrp/testkit/src/sign-in';
import {
  deploySmartAccount,
  deploySmartAccountFactory,
  smartAccountOf,
  smartAccountSignature,
  viemAcceptsSignIn,
} from '@nrp/testkit/src/smart-account';
import { until } from '@nrp/testkit/src/until';
import { insertApiKey } from '../src/data/api-keys';
import { startOffchainService, type OffchainService } from './helpers';

const DOMAIN = 'localhost:3003';
const SEPOLIA = 11155111;

describe('self-serve keys', () => {
  let chain: EnsChain;
  let svc: OffchainService;
  let clock: TestClock;
  let owner: Wallet;
  let other: Wallet;
  let third: Wallet;
  let offchainResolver: string;

  /** A fresh nonce for `wallet`, and a message for it (the fields given override the defaults). */
  async function signedMessage(
    wallet: Wallet,
    fields: {
      domain?: string;
      chainId?: number;
      signer?: Wallet;
      expirationTime?: Date;
      uri?: string;
      /** A smart account: its address, and how it signs. */
      account?: { address: string; sign: (message: string) => string };
    } = {},
    app: Express = svc.app,
  ): Promise<{ siweMessage: string; siweSignature: string; address: string }> {
    const address = fields.account?.address ?? wallet.address;
    const nonce = await request(app).post('/api/v1/auth/nonce').send({ address }).expect(200);
    const message = buildSignInMessage({
      domain: fields.domain ?? DOMAIN,
      address,
      statement: 'Sign in to manage API keys of the names I control.',
      uri: fields.uri ?? 'http://localhost:3000',
      chainId: fields.chainId ?? SEPOLIA,
      nonce: String((nonce.body as { nonce: string }).nonce),
      issuedAt: clock.now(),
      ...(fields.expirationTime ? { expirationTime: fields.expirationTime } : {}),
    });
    const signer = fields.signer ?? wallet;
    return {
      siweMessage: message,
      siweSignature: fields.account ? fields.account.sign(message) : await signer.signMessage(message),
      address,
    };
  }

  async function signIn(wallet: Wallet, app: Express = svc.app): Promise<string> {
    const res = await request(app)
      .post('/api/v1/auth/session')
      .send(await signedMessage(wallet, {}, app))
      .expect(201);
    return (res.body as { token: string }).token;
  }

  async function keyCount(): Promise<number> {
    const row = await svc.db.db
      .selectFrom('offchain_api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  beforeAll(async () => {
    chain = await startEnsChain();
    const [, a, b, c] = chain.accounts;
    if (!a || !b || !c) throw new Error('accounts');
    owner = new Wallet(a.privateKey);
    other = new Wallet(b.privateKey);
    third = new Wallet(c.privateKey);
    offchainResolver = await chain.ens.deployOffchainResolver('http://127.0.0.1:1/{sender}/{data}.json', [
      Wallet.createRandom().address,
    ]);
    await chain.ens.registerEthName('acme', owner.address, { resolver: null });
    await chain.ens.registerEthName('wrapped', owner.address);
    await chain.ens.wrapName('wrapped.eth', owner.address);
    await chain.ens.registerEthName('handed', owner.address);
    await chain.ens.send(chain.ens.contract('ensRegistry'), chain.ens.signerOf(owner.address), 'setOwner', [
      namehash('handed.eth'),
      other.address,
    ]);
    clock = createTestClock();
    svc = await startOffchainService(
      {
        ...devChainEnv(chain.contracts, chain.anvil.rpcUrl),
        SEPOLIA_OFFCHAIN_RESOLVER: offchainResolver,
        NAME_CONTROL_CACHE_MS: '300',
        KEYS_PER_ADDRESS: '8',
        // Webhooks are stored, never delivered: the test reads the deliveries table.
        WEBHOOK_ALLOWED_ORIGINS: 'http://127.0.0.1:9',
        WEBHOOK_DELIVERY_INTERVAL_MS: '0',
      },
      { now: clock.now },
    );
  });

  afterAll(async () => {
    await svc?.close();
    await chain?.stop();
  });

  describe('sign-in', () => {
    it('a nonce, then a session for a signed message; DELETE ends it', async () => {
      const nonce = await request(svc.app)
        .post('/api/v1/auth/nonce')
        .send({ address: owner.address })
        .expect(200);
      expect(nonce.body).toEqual({
        nonce: expect.stringMatching(/^[A-Za-z0-9]{16,}$/),
        expiresAt: expect.any(Number),
      });

      const res = await request(svc.app)
        .post('/api/v1/auth/session')
        .send(await signedMessage(owner))
        .expect(201);
      const session = res.body as { token: string; address: string; expiresAt: number };
      expect(session.address).toBe(owner.address);
      expect(session.token).toMatch(/^session_/);
      expect(session.expiresAt - clock.now().getTime()).toBeGreaterThan(24 * 3600_000 - 60_000);
      expect(session.expiresAt - clock.now().getTime()).toBeLessThanOrEqual(24 * 3600_000);
      // Only the hash is stored.
      const stored = await svc.db.db.selectFrom('offchain_sessions').select('token_hash').execute();
      expect(stored.map((r) => r.token_hash)).not.toContain(session.token);

      const bearer = `Bearer ${session.token}`;
      await request(svc.app).get('/api/v1/keys').set('authorization', bearer).expect(200);
      await request(svc.app).delete('/api/v1/auth/session').set('authorization', bearer).expect(204);
      const after = await request(svc.app).get('/api/v1/keys').set('authorization', bearer).expect(401);
      expect(after.body).toMatchObject({ code: 'UNAUTHORIZED' });
    });

    it('a session expires after 24 h, or with its message', async () => {
      const token = await signIn(owner);
      clock.advance(24 * 3600_000 + 1000);
      try {
        await request(svc.app).get('/api/v1/keys').set('authorization', `Bearer ${token}`).expect(401);
      } finally {
        clock.advance(-(24 * 3600_000 + 1000));
      }
      const expirationTime = new Date(clock.now().getTime() + 60_000);
      const res = await request(svc.app)
        .post('/api/v1/auth/session')
        .send(await signedMessage(owner, { expirationTime }))
        .expect(201);
      expect((res.body as { expiresAt: number }).expiresAt).toBe(expirationTime.getTime());
    });

    it.each([
      ['a wrong domain', { domain: 'evil.example' }, 'DOMAIN_MISMATCH'],
      ['a chain id of no network', { chainId: 10 }, 'CHAIN_MISMATCH'],
      [
        'a signature of another address',
        { signer: new Wallet(Wallet.createRandom().privateKey) },
        'INVALID_SIGNATURE',
      ],
      [
        'a message bound to another resource',
        { uri: 'http://localhost:3003/api/v1/keys' },
        'RESOURCE_MISMATCH',
      ],
    ])('%s is a 401 and opens no session', async (_what, fields, code) => {
      const before = await svc.db.db.selectFrom('offchain_sessions').selectAll().execute();
      const res = await request(svc.app)
        .post('/api/v1/auth/session')
        .send(await signedMessage(owner, fields))
        .expect(401);
      expect(res.body).toMatchObject({ code });
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(await svc.db.db.selectFrom('offchain_sessions').selectAll().execute()).toHaveLength(
        before.length,
      );
    });

    it('an ERC-6492 smart account signs in before and after it is deployed; a bad signature is a 401', async () => {
      const factory = await deploySmartAccountFactory(chain.ens.deployer);
      const account = await smartAccountOf(chain.ens.deployer, factory, third);
      const open = async (signWith: Wallet, erc6492: boolean, status: number) => {
        const sign = (message: string) =>
          smartAccountSignature({ ...account, owner: signWith }, message, erc6492);
        const fields = await signedMessage(owner, { account: { address: account.address, sign } });
        const viem = await viemAcceptsSignIn(
          chain.anvil.rpcUrl,
          account.address,
          fields.siweMessage,
          fields.siweSignature,
        );
        expect(viem).toBe(status === 201);
        return request(svc.app).post('/api/v1/auth/session').send(fields).expect(status);
      };
      const sessions = async () =>
        (await svc.db.db.selectFrom('offchain_sessions').selectAll().execute()).length;

      const before = await sessions();
      const notDeployed = await open(third, true, 201);
      expect(notDeployed.body).toMatchObject({ address: account.address });
      expect((await open(third, false, 401)).body).toMatchObject({ code: 'INVALID_SIGNATURE' });
      expect((await open(other, true, 401)).body).toMatchObject({ code: 'INVALID_SIGNATURE' });
      expect(await sessions()).toBe(before + 1);
      expect(await chain.ens.provider.getCode(account.address)).toBe('0x');

      await deploySmartAccount(chain.ens.deployer, account);
      await open(third, true, 201);
      await open(third, false, 201);
      expect((await open(other, true, 401)).body).toMatchObject({ code: 'INVALID_SIGNATURE' });
    });

    it('a reused or expired nonce is a 401', async () => {
      const fields = await signedMessage(owner);
      await request(svc.app).post('/api/v1/auth/session').send(fields).expect(201);
      const reused = await request(svc.app).post('/api/v1/auth/session').send(fields).expect(401);
      expect(reused.body).toMatchObject({ code: 'INVALID_NONCE' });

      const late = await signedMessage(owner);
      clock.advance(5 * 60_000 + 1000);
      try {
        const expired = await request(svc.app).post('/api/v1/auth/session').send(late).expect(401);
        expect(expired.body).toMatchObject({ code: 'EXPIRED_NONCE' });
      } finally {
        clock.advance(-(5 * 60_000 + 1000));
      }
    });

    it('the address field of another address is a 401', async () => {
      const fields = await signedMessage(owner);
      const res = await request(svc.app)
        .post('/api/v1/auth/session')
        .send({ ...fields, address: other.address })
        .expect(401);
      expect(res.body).toMatchObject({ code: 'ADDRESS_MISMATCH' });
    });

    it('strict bodies: an unknown field is a 400 naming it', async () => {
      const nonce = await request(svc.app)
        .post('/api/v1/auth/nonce')
        .send({ address: owner.address, extra: 1 })
        .expect(400);
      expect(JSON.stringify(nonce.body)).toContain('extra');
      const session = await request(svc.app)
        .post('/api/v1/auth/session')
        .send({ ...(await signedMessage(owner)), extra: 1 })
        .expect(400);
      expect(JSON.stringify(session.body)).toContain('extra');
    });

    it('no token, an unknown token, or a malformed header is a 401', async () => {
      for (const header of [undefined, 'Bearer session_unknown', 'Basic abc', `Bearer ${'x'.repeat(300)}`]) {
        const req = request(svc.app).get('/api/v1/keys');
        const res = await (header ? req.set('authorization', header) : req).expect(401);
        expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
      }
    });
  });

  describe('keys', () => {
    let ownerToken: string;
    beforeAll(async () => {
      ownerToken = await signIn(owner);
    });

    const createKey = (token: string, body: Record<string, unknown>) =>
      request(svc.app).post('/api/v1/keys').set('authorization', `Bearer ${token}`).send(body);

    it('the controller of a name gets a key for it, shown once; it manages direct children only', async () => {
      const res = await createKey(ownerToken, {
        parentName: 'ACME.eth',
        network: 'sepolia',
        note: 'ci',
      }).expect(201);
      const created = res.body as {
        id: string;
        key: string;
        parentName: string;
        includeDescendants: boolean;
      };
      expect(res.body).toEqual({
        id: expect.any(String),
        key: expect.stringMatching(/^offchain_/),
        parentName: 'acme.eth',
        network: 'sepolia',
        includeDescendants: false,
        note: 'ci',
        createdAt: expect.any(String),
      });
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', created.key)
        .send({ parentName: 'acme.eth', label: 'alice' })
        .expect(201);
      const deep = await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', created.key)
        .send({ parentName: 'team.acme.eth', label: 'bob' })
        .expect(403);
      expect(deep.body).toMatchObject({ code: 'PARENT_NOT_ALLOWED' });

      const listKey = async () => {
        const res = await request(svc.app)
          .get('/api/v1/keys')
          .set('authorization', `Bearer ${ownerToken}`)
          .expect(200);
        const body = res.body as { items: Array<Record<string, unknown>> };
        return { body, listed: body.items.find((k) => k.id === created.id) };
      };
      // The successful write is recorded once answered.
      await until(async () => (await listKey()).listed?.lastUsedAt !== null, 'lastUsedAt');
      const list = await listKey();
      expect(list.listed).toEqual({
        id: created.id,
        parentName: 'acme.eth',
        network: 'sepolia',
        includeDescendants: false,
        note: 'ci',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      });
      expect(JSON.stringify(list.body)).not.toContain(created.key);
    });

    it('includeDescendants: the key manages names at any depth below its parent', async () => {
      const res = await createKey(ownerToken, {
        parentName: 'acme.eth',
        network: 'sepolia',
        includeDescendants: true,
      }).expect(201);
      const { key } = res.body as { key: string };
      for (const parentName of ['acme.eth', 'team.acme.eth', 'x.y.team.acme.eth']) {
        await request(svc.app)
          .post('/api/v1/subnames')
          .set('x-auth-token', key)
          .send({ parentName, label: 'deep' })
          .expect(201);
      }
      const hook = await request(svc.app)
        .post('/api/v1/webhooks')
        .set('x-auth-token', key)
        .send({ url: 'http://127.0.0.1:9/hooks', events: ['subname.deleted'] })
        .expect(201);
      await request(svc.app)
        .delete('/api/v1/subnames/deep.x.y.team.acme.eth')
        .set('x-auth-token', key)
        .expect(204);
      // Its webhooks receive the events of those names too.
      const deliveries = await svc.db.db
        .selectFrom('offchain_webhook_deliveries')
        .innerJoin('offchain_events', 'offchain_events.id', 'offchain_webhook_deliveries.event_id')
        .select(['offchain_events.parent_name', 'offchain_events.type'])
        .where('webhook_id', '=', (hook.body as { id: string }).id)
        .execute();
      expect(deliveries).toEqual([{ parent_name: 'x.y.team.acme.eth', type: 'subname.deleted' }]);
      // A name that merely ends with the same letters is not below it.
      const outside = await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'notacme.eth', label: 'x' })
        .expect(403);
      expect(outside.body).toMatchObject({ code: 'PARENT_NOT_ALLOWED' });
    });

    it('a wrapped name is managed by its NameWrapper owner', async () => {
      await createKey(ownerToken, { parentName: 'wrapped.eth', network: 'sepolia' }).expect(201);
    });

    it('a name the address does not control is a 403 naming the controller, and stores nothing', async () => {
      const before = await keyCount();
      const res = await createKey(ownerToken, { parentName: 'handed.eth', network: 'sepolia' }).expect(403);
      expect(res.body).toMatchObject({ code: 'NOT_NAME_MANAGER' });
      const { detail } = res.body as { detail: string };
      expect(detail).toContain(other.address);
      expect(detail).toContain('registrant');
      const nobody = await createKey(ownerToken, { parentName: 'nobody.eth', network: 'sepolia' }).expect(
        403,
      );
      expect((nobody.body as { detail: string }).detail).toContain('Nobody controls nobody.eth');
      const otherToken = await signIn(other);
      const notYours = await createKey(otherToken, { parentName: 'acme.eth', network: 'sepolia' }).expect(
        403,
      );
      expect((notYours.body as { detail: string }).detail).toContain(owner.address);
      expect(await keyCount()).toBe(before);
    });

    it.each([
      ['an unnormalisable name', { parentName: 'a..eth', network: 'sepolia' }, 'INVALID_NAME'],
      ['an unknown network', { parentName: 'acme.eth', network: 'goerli' }, 'INVALID_INPUT'],
      [
        'includeDescendants not a boolean',
        { parentName: 'acme.eth', includeDescendants: 'yes' },
        'INVALID_INPUT',
      ],
      [
        'an unknown field',
        { parentName: 'acme.eth', network: 'sepolia', parents: ['x.eth'] },
        'INVALID_INPUT',
      ],
    ])('%s is a 400 and stores nothing', async (_what, body, code) => {
      const before = await keyCount();
      const res = await createKey(ownerToken, body).expect(400);
      expect(res.body).toMatchObject({ code });
      expect(await keyCount()).toBe(before);
    });

    it('without a session: 401, nothing stored', async () => {
      const before = await keyCount();
      await request(svc.app)
        .post('/api/v1/keys')
        .send({ parentName: 'acme.eth', network: 'sepolia' })
        .expect(401);
      expect(await keyCount()).toBe(before);
    });

    it('a revoked key is refused at once; another address cannot revoke it', async () => {
      const { id, key } = (
        await createKey(ownerToken, { parentName: 'acme.eth', network: 'sepolia' }).expect(201)
      ).body as { id: string; key: string };
      const otherToken = await signIn(other);
      const foreign = await request(svc.app)
        .delete(`/api/v1/keys/${id}`)
        .set('authorization', `Bearer ${otherToken}`)
        .expect(404);
      expect(foreign.body).toMatchObject({ code: 'KEY_NOT_FOUND' });
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'acme.eth', label: 'r' })
        .expect(201);
      await request(svc.app)
        .delete(`/api/v1/keys/${id}`)
        .set('authorization', `Bearer ${ownerToken}`)
        .expect(204);
      await request(svc.app)
        .delete(`/api/v1/keys/${id}`)
        .set('authorization', `Bearer ${ownerToken}`)
        .expect(404);
      const refused = await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'acme.eth', label: 'r' })
        .expect(401);
      expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED' });
      const list = await request(svc.app)
        .get('/api/v1/keys')
        .set('authorization', `Bearer ${ownerToken}`)
        .expect(200);
      expect((list.body as { items: Array<{ id: string }> }).items.map((k) => k.id)).not.toContain(id);
    });

    it('an address holds at most KEYS_PER_ADDRESS live keys: one more is a 409 and stores nothing', async () => {
      const liveKeys = async () =>
        (
          (
            await request(svc.app)
              .get('/api/v1/keys')
              .set('authorization', `Bearer ${ownerToken}`)
              .expect(200)
          ).body as { items: Array<{ id: string }> }
        ).items.map((k) => k.id);
      const before = await liveKeys();
      const created: string[] = [];
      for (let i = before.length; i < 8; i++) {
        const res = await createKey(ownerToken, { parentName: 'acme.eth', network: 'sepolia' }).expect(201);
        created.push((res.body as { id: string }).id);
      }
      const refused = await createKey(ownerToken, { parentName: 'acme.eth', network: 'sepolia' }).expect(409);
      expect(refused.body).toMatchObject({ code: 'KEY_LIMIT_REACHED', status: 409 });
      expect(await liveKeys()).toEqual([...before, ...created]);
      for (const id of created) {
        await request(svc.app)
          .delete(`/api/v1/keys/${id}`)
          .set('authorization', `Bearer ${ownerToken}`)
          .expect(204);
      }
      await createKey(ownerToken, { parentName: 'acme.eth', network: 'sepolia' }).expect(201);
    });

    it('a key whose issuer lost the name stops its webhooks within NAME_CONTROL_CACHE_MS, unused', async () => {
      await chain.ens.registerEthName('hooked', owner.address, { resolver: null });
      const created = (
        await createKey(ownerToken, { parentName: 'hooked.eth', network: 'sepolia' }).expect(201)
      ).body as { id: string; key: string };
      const hook = (
        await request(svc.app)
          .post('/api/v1/webhooks')
          .set('x-auth-token', created.key)
          .send({ url: 'http://127.0.0.1:9/hooks', events: ['subname.created'] })
          .expect(201)
      ).body as { id: string };
      // The operator's key writes the changes: the self-serve key is not used again.
      const operatorKey = await svc.keyFor('hooked.eth');
      const createSubname = (label: string) =>
        request(svc.app)
          .post('/api/v1/subnames')
          .set('x-auth-token', operatorKey)
          .send({ parentName: 'hooked.eth', label })
          .expect(201);
      const deliveries = async () =>
        (
          await svc.db.db
            .selectFrom('offchain_webhook_deliveries')
            .select('id')
            .where('webhook_id', '=', hook.id)
            .execute()
        ).length;
      await createSubname('before');
      expect(await deliveries()).toBe(1);

      await chain.ens.send(chain.ens.contract('ensRegistry'), chain.ens.signerOf(owner.address), 'setOwner', [
        namehash('hooked.eth'),
        third.address,
      ]);
      // The periodic control check (every NAME_CONTROL_CACHE_MS, 300 ms here) revokes the key.
      await until(async () => {
        const row = await svc.db.db
          .selectFrom('offchain_api_keys')
          .select('revoked_at')
          .where('id', '=', created.id)
          .executeTakeFirstOrThrow();
        return row.revoked_at !== null;
      }, 'the key of a name its issuer lost to be revoked');
      await createSubname('after');
      expect(await deliveries()).toBe(1);
    });

    it('a key follows control: refused once its issuer lost the name; the new controller issues its own', async () => {
      await chain.ens.registerEthName('moving', owner.address, { resolver: null });
      const { key } = (
        await createKey(ownerToken, { parentName: 'moving.eth', network: 'sepolia' }).expect(201)
      ).body as { key: string };
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'moving.eth', label: 'kept' })
        .expect(201);

      await chain.ens.send(chain.ens.contract('ensRegistry'), chain.ens.signerOf(owner.address), 'setOwner', [
        namehash('moving.eth'),
        third.address,
      ]);
      // NAME_CONTROL_CACHE_MS is 300 here: past it, the key is refused.
      await new Promise((resolve) => setTimeout(resolve, 350));
      const refused = await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'moving.eth', label: 'late' })
        .expect(401);
      expect(refused.body).toMatchObject({ code: 'KEY_OWNER_CHANGED' });
      expect((refused.body as { detail: string }).detail).toContain(third.address);
      await request(svc.app).get('/api/v1/subnames/late.moving.eth').expect(404);
      await request(svc.app).get('/api/v1/subnames/kept.moving.eth').expect(200);

      const thirdToken = await signIn(third);
      const { key: newKey } = (
        await createKey(thirdToken, { parentName: 'moving.eth', network: 'sepolia' }).expect(201)
      ).body as { key: string };
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', newKey)
        .send({ parentName: 'moving.eth', label: 'late' })
        .expect(201);
    });
  });

  describe('parent setup', () => {
    it('lists the registry setResolver for an unwrapped name; sent, the name is ready', async () => {
      const res = await request(svc.app).get('/api/v1/parents/acme.eth/setup?network=sepolia').expect(200);
      const setup = res.body as { steps: Array<{ to: string; data: string; value: string }> };
      expect(res.body).toMatchObject({
        parentName: 'acme.eth',
        network: 'sepolia',
        controller: owner.address,
        wrapped: false,
        resolver: null,
        resolverIsOurs: false,
        ready: false,
      });
      expect(setup.steps).toHaveLength(1);
      expect(setup.steps[0]?.to).toBe(getAddress(chain.contracts.ensRegistry));
      const sender = chain.ens.signerOf(owner.address);
      for (const step of setup.steps) {
        const tx = await sender.sendTransaction({ to: step.to, data: step.data, value: BigInt(step.value) });
        await tx.wait();
      }
      expect(await chain.ens.resolverOf('acme.eth')).toBe(getAddress(offchainResolver));
      const after = await request(svc.app).get('/api/v1/parents/acme.eth/setup?network=sepolia').expect(200);
      expect(after.body).toMatchObject({
        resolver: getAddress(offchainResolver),
        resolverIsOurs: true,
        ready: true,
        steps: [],
      });
    });

    it('a wrapped name is set through the NameWrapper', async () => {
      const res = await request(svc.app).get('/api/v1/parents/wrapped.eth/setup?network=sepolia').expect(200);
      const setup = res.body as {
        wrapped: boolean;
        steps: Array<{ to: string; data: string; value: string }>;
      };
      expect(setup.wrapped).toBe(true);
      expect(setup.steps[0]?.to).toBe(getAddress(chain.contracts.nameWrapper));
      const sender = chain.ens.signerOf(owner.address);
      for (const step of setup.steps) {
        await (
          await sender.sendTransaction({ to: step.to, data: step.data, value: BigInt(step.value) })
        ).wait();
      }
      expect(await chain.ens.resolverOf('wrapped.eth')).toBe(getAddress(offchainResolver));
    });

    it('bad input: an unnormalisable name (400), a network without our resolver (503)', async () => {
      const bad = await request(svc.app).get('/api/v1/parents/a..eth/setup?network=sepolia').expect(400);
      expect(bad.body).toMatchObject({ code: 'INVALID_NAME' });
      const unknown = await request(svc.app).get('/api/v1/parents/acme.eth/setup?network=goerli').expect(400);
      expect(unknown.body).toMatchObject({ code: 'INVALID_INPUT' });
      const mainnet = await request(svc.app)
        .get('/api/v1/parents/acme.eth/setup?network=mainnet')
        .expect(503);
      expect(mainnet.body).toMatchObject({ code: 'OFFCHAIN_RESOLVER_NOT_CONFIGURED' });
    });
  });

  describe('the key cap under concurrency', () => {
    let capped: OffchainService;
    beforeAll(async () => {
      // KEYS_PER_ADDRESS is its default, 100.
      capped = await startOffchainService(
        { ...devChainEnv(chain.contracts, chain.anvil.rpcUrl), SEPOLIA_OFFCHAIN_RESOLVER: offchainResolver },
        { now: clock.now },
      );
    });
    afterAll(async () => {
      await capped?.close();
    });

    it('60 requests at once at 95 live keys leave 100; the others are 409 KEY_LIMIT_REACHED and store nothing', async () => {
      for (let i = 0; i < 95; i++) {
        await insertApiKey(capped.db.db, {
          keyHash: randomBytes(32).toString('hex'),
          parents: ['acme.eth'],
          issued: { issuer: owner.address, network: 'sepolia' },
        });
      }
      const token = await signIn(owner, capped.app);
      const answers = await Promise.all(
        Array.from({ length: 60 }, () =>
          request(capped.app)
            .post('/api/v1/keys')
            .set('authorization', `Bearer ${token}`)
            .send({ parentName: 'acme.eth', network: 'sepolia' }),
        ),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(5);
      expect(statuses.filter((status) => status === 409)).toHaveLength(55);
      for (const refused of answers.filter((res) => res.status === 409)) {
        expect(refused.body).toMatchObject({ code: 'KEY_LIMIT_REACHED', status: 409 });
      }
      const stored = await capped.db.db
        .selectFrom('offchain_api_keys')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(100);
    });
  });
});
