import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import request from 'supertest';
import { MAX_LISTING_PRICE_WEI } from '@nrp/api';
import { listingSignInMessage, minterSignInMessage } from '@nrp/client';
import { namehash } from '@nrp/ens';
import { ConfigError, createLogger, loadConfig } from '@nrp/server';
import { configSchema } from '../src/config';
import { createService } from '../src/service';
import { type MintService, serviceEnv, signIn, SIWE_DOMAIN, startMintService } from './helpers';
import { isVerifiedMinter } from '../src/data/verified-minters';
import {
  accountAt,
  deploySmartAccount,
  deploySmartAccountFactory,
  smartAccountOf,
  smartAccountSignature,
  viemAcceptsSignIn,
} from '@nrp/testkit';

const listingPath = (network: string, parentName: string) => `/api/v1/listings/${network}/${parentName}`;

describe('mint-svc listings API (sign-in, on-chain owner) and verified minters', () => {
  let env: MintService;
  let owner: { address: string; privateKey: string }; // account 1 owns shop.eth
  let stranger: { address: string; privateKey: string }; // account 2
  let wrappedOwner: { address: string; privateKey: string }; // account 3 owns wrapped.eth (wrapped)

  const listing = {
    basePriceWei: '2000000000000000',
    lengthPrices: [{ length: 3, priceWei: '9000000000000000' }],
    reservedLabels: ['Admin'],
  };

  async function countRows(table: 'mint_listings' | 'mint_verified_minters'): Promise<number> {
    const rows = await env.db.db.selectFrom(table).select('network').execute();
    return rows.length;
  }

  beforeAll(async () => {
    env = await startMintService();
    owner = accountAt(env.chain, 1);
    stranger = accountAt(env.chain, 2);
    wrappedOwner = accountAt(env.chain, 3);
    await env.chain.ens.registerEthName('shop', owner.address);
    await env.chain.ens.registerEthName('wrapped', wrappedOwner.address);
    await env.chain.ens.wrapName('wrapped.eth', wrappedOwner.address);
    await env.chain.ens.registerEthName('boutique', owner.address);
  });
  afterAll(() => env?.close());

  describe('POST /api/v1/auth/nonce', () => {
    it('issues a single-use nonce per scope, expiresAt in Unix milliseconds', async () => {
      const res = await request(env.app)
        .post('/api/v1/auth/nonce')
        .send({ address: owner.address.toLowerCase() })
        .expect(200);
      expect(res.body.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
      expect(res.body.expiresAt).toBeGreaterThan(Date.now() + 4 * 60_000);
      expect(res.body.expiresAt).toBeLessThanOrEqual(Date.now() + 5 * 60_000 + 1000);
    });

    it('rejects a bad address or scope with 400', async () => {
      const bad = await request(env.app).post('/api/v1/auth/nonce').send({ address: 'nope' }).expect(400);
      expect(bad.body.errors[0].path).toBe('body.address');
      const scope = await request(env.app)
        .post('/api/v1/auth/nonce')
        .send({ address: owner.address, scope: 'avatar' })
        .expect(400);
      expect(scope.body.errors[0].path).toBe('body.scope');
    });
  });

  describe('PUT/GET/DELETE /api/v1/listings/{network}/{parentName}', () => {
    it('GET of an unlisted parent is 404 LISTING_NOT_FOUND', async () => {
      const res = await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(404);
      expect(res.body.code).toBe('LISTING_NOT_FOUND');
    });

    it('the owner creates (201) and replaces (200) its listing; defaults are filled in; GET reads it', async () => {
      const signed = await signIn(env.app, owner, { scope: 'listing' });
      const created = await request(env.app)
        .put(listingPath('sepolia', 'SHOP.eth'))
        .send({ ...signed, listing })
        .expect(201);
      expect(created.body).toEqual({
        network: 'sepolia',
        type: 'L1',
        l2Metadata: null,
        parentName: 'shop.eth',
        parentNode: namehash('shop.eth'),
        basePriceWei: '2000000000000000',
        lengthPrices: [{ length: 3, priceWei: '9000000000000000' }],
        fee: { type: 'standard' },
        paymentReceiver: owner.address,
        allowList: [],
        tokenGate: null,
        reservedLabels: ['admin'],
        expiresAt: null,
        requireVerifiedMinter: false,
        fuses: 0,
        listedBy: owner.address,
        source: 'api',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const read = await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(200);
      expect(read.body).toEqual(created.body);

      const estimate = await request(env.app)
        .get('/api/v1/mint/estimate')
        .query({ parentName: 'shop.eth', label: 'abc', minterAddress: stranger.address, isTestnet: true })
        .expect(200);
      expect(estimate.body.estimatedPriceWei).toBe('9000000000000000');

      const again = await signIn(env.app, owner, { scope: 'listing' });
      const replaced = await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({
          ...again,
          listing: {
            basePriceWei: '1',
            fee: { type: 'share', basisPoints: 250 },
            paymentReceiver: stranger.address,
          },
        })
        .expect(200);
      expect(replaced.body).toMatchObject({
        basePriceWei: '1',
        lengthPrices: [],
        reservedLabels: [],
        fee: { type: 'share', basisPoints: 250 },
        paymentReceiver: stranger.address,
        createdAt: created.body.createdAt,
      });
    });

    it('the NameWrapper owner of a wrapped parent manages its listing', async () => {
      const signed = await signIn(env.app, wrappedOwner, { scope: 'listing' });
      const res = await request(env.app)
        .put(listingPath('sepolia', 'wrapped.eth'))
        .send({ ...signed, listing: { basePriceWei: '5', fuses: 65536 } })
        .expect(201);
      expect(res.body).toMatchObject({ listedBy: wrappedOwner.address, fuses: 65536 });
    });

    it('someone who does not own the parent gets 403 NOT_PARENT_OWNER and nothing changes', async () => {
      const before = (await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(200)).body;
      const signed = await signIn(env.app, stranger, { scope: 'listing' });
      const res = await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({ ...signed, listing })
        .expect(403);
      expect(res.body.code).toBe('NOT_PARENT_OWNER');
      expect((await request(env.app).get(listingPath('sepolia', 'shop.eth'))).body).toEqual(before);

      const unowned = await signIn(env.app, stranger, { scope: 'listing' });
      const rows = await countRows('mint_listings');
      const none = await request(env.app)
        .put(listingPath('sepolia', 'nobody.eth'))
        .send({ ...unowned, listing })
        .expect(403);
      expect(none.body.code).toBe('NOT_PARENT_OWNER');
      expect(await countRows('mint_listings')).toBe(rows);

      const del = await signIn(env.app, stranger, { scope: 'listing' });
      const delRes = await request(env.app).delete(listingPath('sepolia', 'shop.eth')).send(del).expect(403);
      expect(delRes.body.code).toBe('NOT_PARENT_OWNER');
      expect(await countRows('mint_listings')).toBe(rows);
    });

    it('each bad sign-in is a 401 with its code, and writes nothing', async () => {
      const rows = await countRows('mint_listings');
      const put = (network: string, body: Record<string, unknown>) =>
        request(env.app)
          .put(listingPath(network, 'fresh.eth'))
          .send({ ...body, listing });
      await env.chain.ens.registerEthName('fresh', owner.address);

      const used = await signIn(env.app, owner, { scope: 'listing' });
      await put('sepolia', used).expect(201);
      await request(env.app).delete(listingPath('sepolia', 'fresh.eth')).send(used).expect(401);
      const reused = await put('sepolia', used).expect(401);
      expect(reused.body.code).toBe('INVALID_NONCE');
      const fresh = await signIn(env.app, owner, { scope: 'listing' });
      await request(env.app).delete(listingPath('sepolia', 'fresh.eth')).send(fresh).expect(200);
      expect(await countRows('mint_listings')).toBe(rows);

      const cases: Array<[string, () => Promise<{ network: string; body: Record<string, unknown> }>]> = [
        [
          'CHAIN_MISMATCH',
          async () => ({ network: 'mainnet', body: await signIn(env.app, owner, { scope: 'listing' }) }),
        ],
        [
          'DOMAIN_MISMATCH',
          async () => ({
            network: 'sepolia',
            body: await signIn(env.app, owner, { scope: 'listing', domain: 'evil.test' }),
          }),
        ],
        [
          'ADDRESS_MISMATCH',
          async () => ({
            network: 'sepolia',
            body: { ...(await signIn(env.app, owner, { scope: 'listing' })), address: stranger.address },
          }),
        ],
        [
          'INVALID_SIGNATURE',
          async () => {
            const signed = await signIn(env.app, owner, { scope: 'listing' });
            const other = await signIn(env.app, owner, { scope: 'listing' });
            return { network: 'sepolia', body: { ...signed, siweSignature: other.siweSignature } };
          },
        ],
        [
          'NONCE_SCOPE_MISMATCH',
          async () => ({ network: 'sepolia', body: await signIn(env.app, owner, { scope: 'minter' }) }),
        ],
        [
          'MESSAGE_EXPIRED',
          async () => ({
            network: 'sepolia',
            body: await signIn(env.app, owner, {
              scope: 'listing',
              expirationTime: new Date(Date.now() - 1000),
            }),
          }),
        ],
      ];
      for (const [code, make] of cases) {
        const { network, body } = await make();
        const res = await put(network, body);
        expect({ code, status: res.status, got: res.body.code }).toEqual({ code, status: 401, got: code });
      }

      const expiring = await signIn(env.app, owner, { scope: 'listing' });
      env.clock.offsetMs = 6 * 60_000;
      try {
        const expired = await put('sepolia', expiring).expect(401);
        expect(expired.body.code).toBe('EXPIRED_NONCE');
      } finally {
        env.clock.offsetMs = 0;
      }
      const missing = await request(env.app)
        .put(listingPath('sepolia', 'fresh.eth'))
        .send({ listing })
        .expect(400);
      expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'body.address',
        'body.siweMessage',
        'body.siweSignature',
      ]);
      expect(await countRows('mint_listings')).toBe(rows);
    });

    it('rejects invalid listings with 400 naming each field, before touching the nonce', async () => {
      const signed = await signIn(env.app, owner, { scope: 'listing' });
      const res = await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({
          ...signed,
          listing: {
            basePriceWei: '-1',
            lengthPrices: [
              { length: 1, priceWei: '1' },
              { length: 1, priceWei: '2' },
            ],
            fee: { type: 'share', basisPoints: 10_001 },
            tokenGate: { standard: 'erc1155', contract: owner.address },
            allowList: ['0x12'],
          },
        })
        .expect(400);
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'body.listing.allowList.0',
        'body.listing.basePriceWei',
        'body.listing.fee.basisPoints',
        'body.listing.lengthPrices',
        'body.listing.tokenGate.tokenId',
      ]);
      const badPath = await request(env.app)
        .put(listingPath('goerli', 'sh\u0000op.eth'))
        .send({ ...signed, listing })
        .expect(400);
      expect(badPath.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'params.network',
        'params.parentName',
      ]);
      // The nonce is still good.
      await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({ ...signed, listing })
        .expect(200);
    });

    it('a price above MAX_LISTING_PRICE_WEI (10^30 wei a year) is a 400 naming the field; at it, it is listed', async () => {
      const before = await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(200);
      const over = await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({
          ...(await signIn(env.app, owner, { scope: 'listing' })),
          listing: {
            ...listing,
            basePriceWei: String(2n ** 256n - 1n),
            lengthPrices: [{ length: 3, priceWei: String(MAX_LISTING_PRICE_WEI + 1n) }],
          },
        })
        .expect(400);
      expect(over.body.code).toBe('INVALID_INPUT');
      expect(over.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'body.listing.basePriceWei',
        'body.listing.lengthPrices.0.priceWei',
      ]);
      expect((await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(200)).body).toEqual(
        before.body,
      );
      const atCeiling = { ...listing, basePriceWei: String(MAX_LISTING_PRICE_WEI) };
      await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({ ...(await signIn(env.app, owner, { scope: 'listing' })), listing: atCeiling })
        .expect(200);
      await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({ ...(await signIn(env.app, owner, { scope: 'listing' })), listing })
        .expect(200);
    });

    it.each(['AAAA', '1.5', '1e3', '-0', ' 1', '0x10'])(
      'an amount %j in any wei field is a 400 naming each, before the signature is looked at',
      async (amount) => {
        const res = await request(env.app)
          .put(listingPath('sepolia', 'shop.eth'))
          .send({
            siweMessage: 'not even a sign-in message',
            siweSignature: '0x00',
            address: owner.address,
            listing: {
              basePriceWei: amount,
              lengthPrices: [{ length: 3, priceWei: amount }],
              tokenGate: {
                standard: 'erc1155',
                contract: owner.address,
                tokenId: amount,
                minBalance: amount,
              },
            },
          })
          .expect(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body.code).toBe('INVALID_INPUT');
        expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
          'body.listing.basePriceWei',
          'body.listing.lengthPrices.0.priceWei',
          'body.listing.tokenGate.minBalance',
          'body.listing.tokenGate.tokenId',
        ]);
      },
    );

    it('the owner removes its listing; minting stops; a second DELETE is 404', async () => {
      const signed = await signIn(env.app, owner, { scope: 'listing' });
      const res = await request(env.app).delete(listingPath('sepolia', 'shop.eth')).send(signed).expect(200);
      expect(res.body).toMatchObject({
        network: 'sepolia',
        parentName: 'shop.eth',
        deletedAt: expect.any(String),
      });
      await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(404);
      const est = await request(env.app)
        .get('/api/v1/mint/estimate')
        .query({ parentName: 'shop.eth', label: 'abc', minterAddress: stranger.address, isTestnet: true })
        .expect(404);
      expect(est.body.code).toBe('LISTING_NOT_FOUND');
      const again = await signIn(env.app, owner, { scope: 'listing' });
      const gone = await request(env.app).delete(listingPath('sepolia', 'shop.eth')).send(again).expect(404);
      expect(gone.body.code).toBe('LISTING_NOT_FOUND');
    });
  });

  describe('messages bound to one listing (Resources / URI)', () => {
    /** A nonce of `scope` and the client helper's bound message for `bind`, signed by `wallet`. */
    async function bound(
      wallet: { address: string; privateKey: string },
      scope: 'listing' | 'minter',
      bind: { parentName: string; operation: 'update' | 'delete' } | 'minter',
    ) {
      const res = await request(env.app)
        .post('/api/v1/auth/nonce')
        .send({ address: wallet.address, scope })
        .expect(200);
      const common = {
        serviceUrl: env.context.config.PUBLIC_BASE_URL,
        domain: SIWE_DOMAIN,
        address: wallet.address,
        nonce: String(res.body.nonce),
        network: 'sepolia' as const,
      };
      const message =
        bind === 'minter' ? minterSignInMessage(common) : listingSignInMessage({ ...common, ...bind });
      return {
        siweMessage: message,
        siweSignature: await new Wallet(wallet.privateKey).signMessage(message),
        address: wallet.address,
      };
    }

    it('one rule with metadata-svc: a URI anywhere on this service binds the message, one elsewhere does not', async () => {
      const base = env.context.config.PUBLIC_BASE_URL;
      const before = await request(env.app).get(listingPath('sepolia', 'shop.eth'));
      const docs = await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({ ...(await signIn(env.app, owner, { scope: 'listing', uri: `${base}/docs` })), listing })
        .expect(401);
      expect(docs.body.code).toBe('RESOURCE_MISMATCH');
      expect((await request(env.app).get(listingPath('sepolia', 'shop.eth'))).body).toEqual(before.body);
    });

    it("refuses shop.eth's message for boutique.eth or for another operation, and accepts it for its own request", async () => {
      const forShop = await bound(owner, 'listing', { parentName: 'shop.eth', operation: 'update' });
      const other = await request(env.app)
        .put(listingPath('sepolia', 'boutique.eth'))
        .send({ ...forShop, listing })
        .expect(401)
        .expect('Content-Type', /application\/problem\+json/);
      expect(other.body.code).toBe('RESOURCE_MISMATCH');
      expect(other.body.detail).toContain('/api/v1/listings/sepolia/boutique.eth');
      await request(env.app).get(listingPath('sepolia', 'boutique.eth')).expect(404);

      // The refusal left the nonce unused: the same message then works for the listing it names.
      await request(env.app)
        .put(listingPath('sepolia', 'shop.eth'))
        .send({ ...forShop, listing })
        .expect(201);

      const updateOfShop = await bound(owner, 'listing', { parentName: 'shop.eth', operation: 'update' });
      const deletion = await request(env.app)
        .delete(listingPath('sepolia', 'shop.eth'))
        .send(updateOfShop)
        .expect(401);
      expect(deletion.body.code).toBe('RESOURCE_MISMATCH');
      await request(env.app).get(listingPath('sepolia', 'shop.eth')).expect(200);
    });

    it('binds minter verification to its route; an unbound message keeps working', async () => {
      const minter = accountAt(env.chain, 4);
      const rows = await countRows('mint_verified_minters');
      const listingBound = await bound(minter, 'minter', { parentName: 'shop.eth', operation: 'update' });
      const refused = await request(env.app)
        .post('/api/v1/minters/verify')
        .send({ network: 'sepolia', ...listingBound })
        .expect(401);
      expect(refused.body.code).toBe('RESOURCE_MISMATCH');
      expect(await countRows('mint_verified_minters')).toBe(rows);
      await request(env.app)
        .post('/api/v1/minters/verify')
        .send({ network: 'sepolia', ...(await bound(minter, 'minter', 'minter')) })
        .expect(200);
      // The contract's layout (no Resources, a URI that is not this service's) is not bound.
      const unbound = await signIn(env.app, owner, { scope: 'listing' });
      await request(env.app)
        .put(listingPath('sepolia', 'boutique.eth'))
        .send({ ...unbound, listing })
        .expect(201);
    });
  });

  describe('LISTINGS_FILE', () => {
    it('loads operator listings at start (source file, no signer) and refuses an entry without a receiver', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'mint-listings-'));
      const file = path.join(dir, 'listings.json');
      writeFileSync(
        file,
        JSON.stringify([
          {
            network: 'sepolia',
            parentName: 'Operator.eth',
            listing: { basePriceWei: '7', paymentReceiver: stranger.address, requireVerifiedMinter: true },
          },
        ]),
      );
      const config = loadConfig(configSchema, serviceEnv(env.chain, { LISTINGS_FILE: file }));
      const logger = createLogger('t', 'silent');
      const second = await createService(config, logger, { database: env.db });
      try {
        const res = await request(second.app).get(listingPath('sepolia', 'operator.eth')).expect(200);
        expect(res.body).toMatchObject({
          parentName: 'operator.eth',
          basePriceWei: '7',
          paymentReceiver: stranger.address,
          listedBy: null,
          source: 'file',
          requireVerifiedMinter: true,
        });
      } finally {
        for (const step of second.onShutdown) await step();
      }

      writeFileSync(
        file,
        JSON.stringify([{ network: 'sepolia', parentName: 'x.eth', listing: { basePriceWei: '1' } }]),
      );
      const err = await createService(config, logger, { database: env.db }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err)).toMatch(/paymentReceiver/);
      writeFileSync(file, '{ not json');
      await expect(createService(config, logger, { database: env.db })).rejects.toThrow(/LISTINGS_FILE/);
    });
  });

  describe('POST /api/v1/minters/verify', () => {
    it('an ERC-6492 smart account verifies before and after it is deployed; a bad signature is a 401', async () => {
      const deployer = env.chain.ens.deployer;
      const factory = await deploySmartAccountFactory(deployer);
      const account = await smartAccountOf(deployer, factory, new Wallet(stranger.privateKey));
      const verify = async (signWith: { privateKey: string }, erc6492: boolean, status: number) => {
        const signer = { ...account, owner: new Wallet(signWith.privateKey) };
        const sign = (message: string) => smartAccountSignature(signer, message, erc6492);
        const fields = await signIn(env.app, stranger, {
          scope: 'minter',
          account: { address: account.address, sign },
        });
        const viem = await viemAcceptsSignIn(
          env.chain.anvil.rpcUrl,
          account.address,
          fields.siweMessage,
          fields.siweSignature,
        );
        expect(viem).toBe(status === 200);
        return request(env.app)
          .post('/api/v1/minters/verify')
          .send({ network: 'sepolia', ...fields })
          .expect(status);
      };

      expect((await verify(stranger, true, 200)).body).toMatchObject({ address: account.address });
      expect((await verify(stranger, false, 401)).body.code).toBe('INVALID_SIGNATURE');
      expect((await verify(owner, true, 401)).body.code).toBe('INVALID_SIGNATURE');
      expect(await env.provider.getCode(account.address)).toBe('0x');

      await deploySmartAccount(deployer, account);
      await verify(stranger, true, 200);
      await verify(stranger, false, 200);
      expect((await verify(owner, true, 401)).body.code).toBe('INVALID_SIGNATURE');
    });

    it('records a verified minter per network; bad sign-ins are 401 and record nothing', async () => {
      const rows = await countRows('mint_verified_minters');
      const wrongChain = await signIn(env.app, stranger, { scope: 'minter', chainId: 1 });
      const res = await request(env.app)
        .post('/api/v1/minters/verify')
        .send({ network: 'sepolia', ...wrongChain })
        .expect(401);
      expect(res.body.code).toBe('CHAIN_MISMATCH');
      const listingScope = await signIn(env.app, stranger, { scope: 'listing' });
      const scope = await request(env.app)
        .post('/api/v1/minters/verify')
        .send({ network: 'sepolia', ...listingScope })
        .expect(401);
      expect(scope.body.code).toBe('NONCE_SCOPE_MISMATCH');
      expect(await countRows('mint_verified_minters')).toBe(rows);

      const good = await signIn(env.app, stranger, { scope: 'minter' });
      const ok = await request(env.app)
        .post('/api/v1/minters/verify')
        .send({ network: 'sepolia', ...good })
        .expect(200);
      expect(ok.body).toEqual({
        network: 'sepolia',
        address: stranger.address,
        verifiedUntil: expect.any(Number),
      });
      expect(ok.body.verifiedUntil).toBeGreaterThan(Date.now() / 1000 + 29 * 86400);
      expect(await countRows('mint_verified_minters')).toBe(rows + 1);
      expect(await isVerifiedMinter(env.context.db, 'sepolia', stranger.address)).toBe(true);
      expect(
        await isVerifiedMinter(
          env.context.db,
          'sepolia',
          stranger.address,
          new Date(ok.body.verifiedUntil * 1000),
        ),
      ).toBe(false);
    });
  });
});
