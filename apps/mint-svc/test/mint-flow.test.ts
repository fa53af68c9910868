import {
  Contract,
  Interface,
  TypedDataEncoder,
  Wallet,
  formatEther,
  getAddress,
  id,
  type TransactionReceipt,
} from 'ethers';
import request from 'supertest';
import { listingInputSchema, MAX_LISTING_PRICE_WEI } from '@nrp/api';
import { MINT_CONTEXT_TYPES, mintEip712Domain } from '@nrp/contracts';
import { labelhash, namehash } from '@nrp/ens';
import {
  accountAt,
  approveController,
  ensNpmArtifacts,
  MINT_SIGNER_KEY,
  mintArgs,
  revertName,
  sendMint,
  walletAt,
} from '@nrp/testkit';
import { signMintContext } from '../src/mint/sign-mint';
import { listDirect, type MintService, signIn, startMintService } from './helpers';
import { removeListing, upsertListing } from '../src/data/listings';
import { isVerifiedMinter } from '../src/data/verified-minters';

const resolverIface = new Interface(ensNpmArtifacts.publicResolver.abi);
const SEPOLIA = 11155111;
const MILLI = 10n ** 15n;

describe('mint-svc estimate, mint and the controller on the ENS test chain', () => {
  let env: MintService;
  let parentOwner: string; // account 1, owns mint.eth (unwrapped) and strict.eth
  let receiver: string; // account 2, paymentReceiver of mint.eth
  let wrappedOwner: string; // account 3, owns wrapped.eth (wrapped)
  let minter: string; // account 5
  let newOwner: string; // account 6

  const estimate = (query: Record<string, string | number | boolean>) =>
    request(env.app)
      .get('/api/v1/mint/estimate')
      .query({ isTestnet: true, ...query });
  const mint = (body: Record<string, unknown>) =>
    request(env.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, ...body });

  beforeAll(async () => {
    env = await startMintService();
    const { ens } = env.chain;
    parentOwner = accountAt(env.chain, 1).address;
    receiver = accountAt(env.chain, 2).address;
    wrappedOwner = accountAt(env.chain, 3).address;
    minter = accountAt(env.chain, 5).address;
    newOwner = accountAt(env.chain, 6).address;

    await ens.registerEthName('mint', parentOwner);
    await approveController(env, 1, false);
    await listDirect(env, 'mint.eth', {
      basePriceWei: String(MILLI), // 0.001 ETH a year
      lengthPrices: [{ length: 3, priceWei: String(5n * MILLI) }],
      fee: { type: 'share', basisPoints: 500 },
      paymentReceiver: receiver,
    });
    await ens.createSubname('mint.eth', 'taken', parentOwner);

    await ens.registerEthName('wrapped', wrappedOwner);
    await ens.wrapName('wrapped.eth', wrappedOwner);
    await approveController(env, 3, true);
    await listDirect(env, 'wrapped.eth', {
      basePriceWei: String(2n * MILLI),
      paymentReceiver: wrappedOwner,
      fuses: 65536,
    });

    await ens.registerEthName('strict', parentOwner);
    await ens.createSubname('strict.eth', 'vip', parentOwner);
  });
  afterAll(() => env?.close());

  /** Registers `label`.eth to the parent owner once (approved for the controller like all its names). */
  const registered = new Set<string>();
  async function ensParent(label: string): Promise<void> {
    if (registered.has(label)) return;
    await env.chain.ens.registerEthName(label, parentOwner);
    registered.add(label);
  }

  describe('input and lookup failures', () => {
    it('an unknown listing is 404 LISTING_NOT_FOUND, for the estimate and the mint', async () => {
      const res = await estimate({ parentName: 'nope.eth', label: 'abc', minterAddress: minter }).expect(404);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('LISTING_NOT_FOUND');
      const minted = await mint({ parentName: 'nope.eth', label: 'abc', minterAddress: minter }).expect(404);
      expect(minted.body.code).toBe('LISTING_NOT_FOUND');
    });

    it('the same parent on mainnet (isTestnet=false) is another listing', async () => {
      const res = await estimate({
        parentName: 'mint.eth',
        label: 'abc',
        minterAddress: minter,
        isTestnet: false,
      });
      expect(res.status).toBe(404);
    });

    it('bad query and body fields are 400 INVALID_INPUT / INVALID_NAME naming each field', async () => {
      const missing = await request(env.app)
        .get('/api/v1/mint/estimate')
        .query({ parentName: 'mint.eth', label: 'abc' })
        .expect(400);
      expect(missing.body.code).toBe('INVALID_INPUT');
      expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.minterAddress']);

      const bad = await estimate({
        parentName: 'mi',
        label: 'abc',
        minterAddress: '0x1234',
        expiryInYears: 0,
      }).expect(400);
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'query.expiryInYears',
        'query.minterAddress',
        'query.parentName',
      ]);

      const dotted = await estimate({ parentName: 'mint.eth', label: 'a.b', minterAddress: minter }).expect(
        400,
      );
      expect(dotted.body.code).toBe('INVALID_NAME');
      const unnormalisable = await mint({ parentName: 'mint.eth', label: 'a\u0000', minterAddress: minter });
      expect(unnormalisable.status).toBe(400);
      expect(unnormalisable.body.code).toBe('INVALID_NAME');

      const noMinter = await mint({ parentName: 'mint.eth', label: 'abc' }).expect(400);
      expect(noMinter.body.errors).toEqual([{ path: 'body.minterAddress', message: expect.any(String) }]);
      const fractional = await mint({
        parentName: 'mint.eth',
        label: 'abc',
        minterAddress: minter,
        expiryInYears: 1.5,
      });
      expect(fractional.status).toBe(400);
      expect(fractional.body.errors[0].path).toBe('body.expiryInYears');
    });

    it('a network without a mint controller is 503 MINT_CONTROLLER_NOT_CONFIGURED', async () => {
      const res = await mint({
        parentName: 'mint.eth',
        label: 'abc',
        minterAddress: minter,
        isTestnet: false,
      });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('MINT_CONTROLLER_NOT_CONFIGURED');
    });

    it('a failing RPC node is 502 UPSTREAM_ERROR carrying the node error (mainnet points at a closed port)', async () => {
      await upsertListing(env.context.db, {
        network: 'mainnet',
        parentName: 'mint.eth',
        parentNode: namehash('mint.eth'),
        settings: { ...listingInputSchema.parse({ basePriceWei: '1' }), paymentReceiver: receiver },
        listedBy: null,
        source: 'file',
      });
      try {
        const res = await estimate({
          parentName: 'mint.eth',
          label: 'abc',
          minterAddress: minter,
          isTestnet: false,
        });
        expect(res.status).toBe(502);
        expect(res.body).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: { message: expect.any(String) } });
        expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
      } finally {
        await removeListing(env.context.db, 'mainnet', 'mint.eth');
      }
    });

    it('names are normalised: upper case input is the listed lower-case name', async () => {
      const res = await estimate({ parentName: 'MINT.eth', label: 'Hello', minterAddress: minter }).expect(
        200,
      );
      expect(res.body.canMint).toBe(true);
    });
  });

  describe('listing validity on-chain', () => {
    it('a listing signed by a former owner of the parent is no longer offered (404)', async () => {
      const buyer = accountAt(env.chain, 8).address;
      await env.chain.ens.registerEthName('sold', buyer);
      await listDirect(env, 'sold.eth', { paymentReceiver: parentOwner }, parentOwner);
      const res = await estimate({ parentName: 'sold.eth', label: 'abc', minterAddress: minter }).expect(404);
      expect(res.body).toMatchObject({
        code: 'LISTING_NOT_FOUND',
        detail: expect.stringMatching(/no longer owns/),
      });
      await mint({ parentName: 'sold.eth', label: 'abc', minterAddress: minter }).expect(404);
      const listing = await request(env.app).get('/api/v1/listings/sepolia/sold.eth').expect(404);
      expect(listing.body).toMatchObject({ code: 'LISTING_NOT_FOUND', detail: res.body.detail });
      await listDirect(env, 'sold.eth', { paymentReceiver: buyer }, buyer);
      await estimate({ parentName: 'sold.eth', label: 'abc', minterAddress: minter }).expect(200);
      const relisted = await request(env.app).get('/api/v1/listings/sepolia/sold.eth').expect(200);
      expect(relisted.body.listedBy).toBe(buyer);
    });

    it('POST mint is 409 PARENT_NOT_APPROVED until the parent owner approves the controller', async () => {
      const res = await mint({ parentName: 'sold.eth', label: 'abc', minterAddress: minter }).expect(409);
      expect(res.body.code).toBe('PARENT_NOT_APPROVED');
      await approveController(env, 8, false);
      await mint({ parentName: 'sold.eth', label: 'abc', minterAddress: minter }).expect(200);
    });
  });

  describe('prices, fees and expiry', () => {
    it('prices by label length times years, with a share fee, in exact wei', async () => {
      const five = await estimate({ parentName: 'mint.eth', label: 'hello', minterAddress: minter }).expect(
        200,
      );
      expect(five.body).toEqual({
        canMint: true,
        estimatedPriceEth: 0.001,
        estimatedFeeEth: 0.00005,
        isStandardFee: false,
        validationErrors: [],
        estimatedPriceWei: '1000000000000000',
        estimatedFeeWei: '50000000000000',
        expiry: expect.any(Number),
      });
      const three = await estimate({
        parentName: 'mint.eth',
        label: 'abc',
        minterAddress: minter,
        expiryInYears: 3,
      }).expect(200);
      // 0.005 ETH × 3 = 0.015 ETH; 5 % of it.
      expect(three.body.estimatedPriceWei).toBe('15000000000000000');
      expect(three.body.estimatedFeeWei).toBe('750000000000000');
      expect(three.body.estimatedPriceEth).toBe(0.015);
      expect(three.body.estimatedFeeEth).toBe(0.00075);
    });

    it('a label of multi-byte characters is priced by its code points', async () => {
      const res = await estimate({ parentName: 'mint.eth', label: '日本語', minterAddress: minter }).expect(
        200,
      );
      expect(res.body.estimatedPriceWei).toBe(String(5n * MILLI));
    });

    it('big and tiny amounts: the ether numbers come from the exact wei, and the mint signs the same wei', async () => {
      const big = '123456789123456789123456789'; // ~1.23e8 ETH, more digits than a double holds
      await listDirect(env, 'mint.eth', {
        basePriceWei: big,
        fee: { type: 'share', basisPoints: 1 },
        paymentReceiver: receiver,
      });
      const est = await estimate({
        parentName: 'mint.eth',
        label: 'whale',
        minterAddress: minter,
        expiryInYears: 7,
      });
      const price = BigInt(big) * 7n;
      const fee = price / 10_000n;
      expect(est.body.estimatedPriceWei).toBe(price.toString());
      expect(est.body.estimatedFeeWei).toBe(fee.toString());
      expect(est.body.estimatedPriceEth).toBe(Number(formatEther(price)));
      expect(est.body.estimatedFeeEth).toBe(Number(formatEther(fee)));
      expect(est.body.estimatedPriceEth).toBe(864197523.8641975);
      const signed = await mint({
        parentName: 'mint.eth',
        label: 'whale',
        minterAddress: minter,
        expiryInYears: 7,
      });
      expect(signed.body.content.price).toBe(price.toString());
      expect(signed.body.content.fee).toBe(fee.toString());

      await listDirect(env, 'mint.eth', { basePriceWei: '1', paymentReceiver: receiver });
      const tiny = await estimate({
        parentName: 'mint.eth',
        label: 'plankton',
        minterAddress: minter,
      }).expect(200);
      expect(tiny.body).toMatchObject({
        estimatedPriceWei: '1',
        estimatedPriceEth: 1e-18,
        estimatedFeeWei: '1000', // STANDARD_FEE_WEI
        estimatedFeeEth: 1e-15,
        isStandardFee: true,
      });

      // 0.1 ETH × 3 is 0.3 ETH in wei, where 0.1 * 3 in floating point is 0.30000000000000004.
      await listDirect(env, 'mint.eth', { basePriceWei: String(100n * MILLI), paymentReceiver: receiver });
      const three = await estimate({
        parentName: 'mint.eth',
        label: 'trio',
        minterAddress: minter,
        expiryInYears: 3,
      });
      expect(three.body.estimatedPriceWei).toBe('300000000000000000');
      expect(three.body.estimatedPriceEth).toBe(0.3);

      await listDirect(env, 'mint.eth', {
        basePriceWei: String(MILLI),
        lengthPrices: [{ length: 3, priceWei: String(5n * MILLI) }],
        fee: { type: 'share', basisPoints: 500 },
        paymentReceiver: receiver,
      });
    });

    it.each([
      // At the ceiling every term and fee fits: price × 100 + a 100 % share is 2 × 10^32 wei.
      { price: MAX_LISTING_PRICE_WEI, fee: { type: 'share', basisPoints: 10_000 } as const, years: 100 },
      { price: MAX_LISTING_PRICE_WEI, fee: { type: 'standard' } as const, years: 100 },
      { price: MAX_LISTING_PRICE_WEI, fee: { type: 'share', basisPoints: 1 } as const, years: 1 },
      // Stored before the ceiling existed: price × years + fee past uint256 cannot be paid by any transaction.
      { price: 2n ** 256n - 1n, fee: { type: 'standard' } as const, years: 1 },
      { price: 2n ** 256n - 1n, fee: { type: 'standard' } as const, years: 100 },
      { price: 2n ** 255n, fee: { type: 'share', basisPoints: 10_000 } as const, years: 1 },
      { price: (2n ** 256n - 1n) / 100n, fee: { type: 'share', basisPoints: 5_000 } as const, years: 100 },
    ])(
      'a listing of $price wei a year ($fee.type fee, $years years): the estimate and the mint agree, never a 500',
      async ({ price, fee, years }) => {
        await ensParent('pricey');
        // Straight into the table: the API refuses prices above MAX_LISTING_PRICE_WEI, older rows may hold them.
        await upsertListing(env.context.db, {
          network: 'sepolia',
          parentName: 'pricey.eth',
          parentNode: namehash('pricey.eth'),
          settings: {
            ...listingInputSchema.parse({ basePriceWei: '0', fee }),
            basePriceWei: price.toString(),
            paymentReceiver: receiver,
          },
          listedBy: null,
          source: 'file',
        });
        const query = {
          parentName: 'pricey.eth',
          label: 'gold',
          minterAddress: minter,
          expiryInYears: years,
        };
        const total = price * BigInt(years);
        const payable =
          total + (fee.type === 'standard' ? 1000n : (total * BigInt(fee.basisPoints)) / 10_000n);
        const fits = payable < 2n ** 256n;
        const est = await estimate(query).expect(200);
        expect(est.body).toMatchObject({
          canMint: fits,
          validationErrors: fits ? [] : ['PRICE_NOT_PAYABLE'],
          estimatedPriceWei: total.toString(),
        });
        const signed = await mint(query);
        if (fits) {
          expect(signed.status).toBe(200);
          expect(BigInt(signed.body.content.price) + BigInt(signed.body.content.fee)).toBe(payable);
        } else {
          expect(signed.status).toBe(400);
          expect(signed.body).toMatchObject({
            code: 'MINT_NOT_ALLOWED',
            validationErrors: ['PRICE_NOT_PAYABLE'],
          });
        }
      },
    );

    it('expiry is now + years, capped at the parent expiry (registrar expiry of the .eth name)', async () => {
      const registrar = env.chain.ens.contract('baseRegistrar');
      const parentExpiry = Number(
        await registrar.getFunction('nameExpires').staticCall(BigInt(labelhash('mint'))),
      );
      // mint.eth was registered for a year when this file started, so on a slow machine the cap applies too.
      const year = 365 * 86400;
      const before = Math.floor(Date.now() / 1000);
      const one = await estimate({ parentName: 'mint.eth', label: 'hello', minterAddress: minter }).expect(
        200,
      );
      const after = Math.ceil(Date.now() / 1000);
      expect(one.body.expiry).toBeGreaterThanOrEqual(Math.min(before + year, parentExpiry));
      expect(one.body.expiry).toBeLessThanOrEqual(Math.min(after + year, parentExpiry));
      const ten = await estimate({
        parentName: 'mint.eth',
        label: 'hello',
        minterAddress: minter,
        expiryInYears: 10,
      });
      expect(ten.body.expiry).toBe(parentExpiry);
    });

    it('an expired parent is 410 PARENT_EXPIRED', async () => {
      env.clock.offsetMs = 2 * 365 * 86400 * 1000;
      try {
        const res = await estimate({ parentName: 'mint.eth', label: 'hello', minterAddress: minter });
        expect(res.status).toBe(410);
        expect(res.body.code).toBe('PARENT_EXPIRED');
      } finally {
        env.clock.offsetMs = 0;
      }
    });
  });

  describe('validation errors', () => {
    it('SUBNAME_TAKEN when the subname has an owner on-chain', async () => {
      const res = await estimate({ parentName: 'mint.eth', label: 'taken', minterAddress: minter }).expect(
        200,
      );
      expect(res.body).toMatchObject({ canMint: false, validationErrors: ['SUBNAME_TAKEN'] });
    });

    it('MINTER_NOT_TOKEN_OWNER for an ERC-721 gate (the .eth registrar) and an ERC-1155 gate (the NameWrapper)', async () => {
      await listDirect(env, 'gated721.eth', {
        paymentReceiver: receiver,
        tokenGate: { standard: 'erc721', contract: env.chain.contracts.baseRegistrar },
      });
      const lacking = await estimate({ parentName: 'gated721.eth', label: 'x1', minterAddress: minter });
      expect(lacking.body.validationErrors).toEqual(['MINTER_NOT_TOKEN_OWNER']);
      const holder = await estimate({ parentName: 'gated721.eth', label: 'x1', minterAddress: parentOwner });
      expect(holder.body.validationErrors).toEqual([]);

      await listDirect(env, 'gated1155.eth', {
        paymentReceiver: receiver,
        tokenGate: {
          standard: 'erc1155',
          contract: env.chain.contracts.nameWrapper,
          tokenId: BigInt(namehash('wrapped.eth')).toString(),
        },
      });
      const notHolder = await estimate({ parentName: 'gated1155.eth', label: 'x1', minterAddress: minter });
      expect(notHolder.body.validationErrors).toEqual(['MINTER_NOT_TOKEN_OWNER']);
      const tokenHolder = await estimate({
        parentName: 'gated1155.eth',
        label: 'x1',
        minterAddress: wrappedOwner,
      });
      expect(tokenHolder.body.validationErrors).toEqual([]);
    });

    it('MINTER_NOT_WHITELISTED when an allow-list does not hold the minter', async () => {
      await listDirect(env, 'allow.eth', { paymentReceiver: receiver, allowList: [newOwner] });
      const outside = await estimate({ parentName: 'allow.eth', label: 'x1', minterAddress: minter });
      expect(outside.body.validationErrors).toEqual(['MINTER_NOT_WHITELISTED']);
      const inside = await estimate({
        parentName: 'allow.eth',
        label: 'x1',
        minterAddress: newOwner.toLowerCase(),
      });
      expect(inside.body.validationErrors).toEqual([]);
    });

    it('LISTING_EXPIRED once expiresAt has passed', async () => {
      const now = Math.floor(Date.now() / 1000);
      await listDirect(env, 'ending.eth', { paymentReceiver: receiver, expiresAt: now + 3600 });
      const open = await estimate({ parentName: 'ending.eth', label: 'x1', minterAddress: minter });
      expect(open.body.validationErrors).toEqual([]);
      env.clock.offsetMs = 3601 * 1000;
      try {
        const closed = await estimate({ parentName: 'ending.eth', label: 'x1', minterAddress: minter });
        expect(closed.body.validationErrors).toEqual(['LISTING_EXPIRED']);
      } finally {
        env.clock.offsetMs = 0;
      }
    });

    it('SUBNAME_RESERVED for a reserved label (compared after normalisation)', async () => {
      await listDirect(env, 'reserved.eth', { paymentReceiver: receiver, reservedLabels: ['admin'] });
      const res = await estimate({ parentName: 'reserved.eth', label: 'ADMIN', minterAddress: minter });
      expect(res.body.validationErrors).toEqual(['SUBNAME_RESERVED']);
    });

    it('VERIFIED_MINTER_ADDRESS_REQUIRED until the minter verifies its address with a sign-in', async () => {
      await listDirect(env, 'verified.eth', { paymentReceiver: receiver, requireVerifiedMinter: true });
      const before = await estimate({ parentName: 'verified.eth', label: 'x1', minterAddress: minter });
      expect(before.body.validationErrors).toEqual(['VERIFIED_MINTER_ADDRESS_REQUIRED']);
      const signed = await signIn(env.app, accountAt(env.chain, 5), { scope: 'minter' });
      const verified = await request(env.app)
        .post('/api/v1/minters/verify')
        .send({ network: 'sepolia', ...signed })
        .expect(200);
      expect(verified.body).toMatchObject({ network: 'sepolia', address: minter });
      const after = await estimate({ parentName: 'verified.eth', label: 'x1', minterAddress: minter });
      expect(after.body.validationErrors).toEqual([]);
      // Verified on sepolia only.
      expect(await isVerifiedMinter(env.context.db, 'mainnet', minter)).toBe(false);
    });

    it('lists every cause at once, and POST /api/v1/mint refuses with 400 MINT_NOT_ALLOWED and the same list', async () => {
      await listDirect(env, 'strict.eth', {
        paymentReceiver: receiver,
        tokenGate: { standard: 'erc721', contract: env.chain.contracts.baseRegistrar },
        allowList: [newOwner],
        expiresAt: Math.floor(Date.now() / 1000) - 1,
        reservedLabels: ['vip'],
        requireVerifiedMinter: true,
      });
      const stranger = accountAt(env.chain, 7).address;
      const est = await estimate({ parentName: 'strict.eth', label: 'vip', minterAddress: stranger }).expect(
        200,
      );
      const all = [
        'SUBNAME_TAKEN',
        'MINTER_NOT_TOKEN_OWNER',
        'MINTER_NOT_WHITELISTED',
        'LISTING_EXPIRED',
        'SUBNAME_RESERVED',
        'VERIFIED_MINTER_ADDRESS_REQUIRED',
      ];
      expect(est.body).toMatchObject({ canMint: false, validationErrors: all });
      const res = await mint({ parentName: 'strict.eth', label: 'vip', minterAddress: stranger }).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'MINT_NOT_ALLOWED', status: 400, validationErrors: all });

      const some = await mint({ parentName: 'strict.eth', label: 'other', minterAddress: newOwner }).expect(
        400,
      );
      expect(some.body.validationErrors).toEqual([
        'MINTER_NOT_TOKEN_OWNER',
        'LISTING_EXPIRED',
        'VERIFIED_MINTER_ADDRESS_REQUIRED',
      ]);
    });
  });

  describe('signing and minting on-chain', () => {
    it('counts the signatures it hands out and the RPC calls behind them at /metrics', async () => {
      const sample = async (name: string, labels: string[]) => {
        const text = (await request(env.app).get('/metrics').expect(200)).text;
        const line = text
          .split('\n')
          .find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
        return line ? Number(line.split(' ').pop()) : 0;
      };
      const signatures = await sample('mint_signatures_total', ['network="sepolia"']);
      const calls = await sample('rpc_call_duration_seconds_count', ['network="sepolia"', 'outcome="ok"']);
      await mint({ parentName: 'mint.eth', label: 'counted', minterAddress: minter }).expect(200);
      await mint({ parentName: 'mint.eth', label: 'taken', minterAddress: minter }).expect(400);
      expect(await sample('mint_signatures_total', ['network="sepolia"'])).toBe(signatures + 1);
      expect(
        await sample('rpc_call_duration_seconds_count', ['network="sepolia"', 'outcome="ok"']),
      ).toBeGreaterThan(calls);
    });

    it('the service signature is the EIP-712 digest the controller computes', async () => {
      const res = await mint({ parentName: 'mint.eth', label: 'digest', minterAddress: minter }).expect(200);
      const [ctx] = mintArgs(res.body);
      const domain = mintEip712Domain(SEPOLIA, env.controllerAddress);
      const digest = TypedDataEncoder.hash(domain, MINT_CONTEXT_TYPES, ctx);
      expect(await env.controller.getFunction('hashMintContext').staticCall(ctx)).toBe(digest);
      expect(res.body.mintController).toBe(env.controllerAddress);
      expect(res.body.chainId).toBe(SEPOLIA);
      const typeHash = await env.controller.getFunction('MINT_CONTEXT_TYPEHASH').staticCall();
      const encodedType = TypedDataEncoder.from(MINT_CONTEXT_TYPES).encodeType('MintContext');
      expect(encodedType).toBe(
        'MintContext(address owner,string label,bytes32 parentNode,uint256 price,uint256 fee,address paymentReceiver,uint64 expiry,uint256 signatureExpiry,address verifiedMinter,uint32 fuses)',
      );
      expect(typeHash).toBe(id(encodedType));
      expect(res.body.content).toMatchObject({
        owner: minter,
        verifiedMinter: minter,
        paymentReceiver: receiver,
        parentNode: namehash('mint.eth'),
        fuses: 0,
      });
      const now = Math.floor(Date.now() / 1000);
      expect(res.body.content.signatureExpiry).toBeGreaterThan(now + 500);
      expect(res.body.content.signatureExpiry).toBeLessThanOrEqual(now + 601);
    });

    it('a wallet mints with the signed parameters: owner, records, event and balances as promised', async () => {
      const res = await mint({
        parentName: 'mint.eth',
        label: 'alice',
        minterAddress: minter,
        owner: newOwner,
        expiryInYears: 2,
      }).expect(200);
      expect(res.body.content.price).toBe(String(2n * MILLI));
      expect(res.body.content.fee).toBe(String((2n * MILLI * 500n) / 10_000n));
      const node = namehash('alice.mint.eth');
      const records = [
        resolverIface.encodeFunctionData('setText', [node, 'url', 'https://alice.example']),
        resolverIface.encodeFunctionData('setAddr(bytes32,address)', [node, newOwner]),
      ];
      const price = BigInt(res.body.content.price);
      const fee = BigInt(res.body.content.fee);
      const extra = 12345n;
      const receipt = (await sendMint(
        env,
        walletAt(env, 5),
        mintArgs(res.body, records),
        price + fee + extra,
      )) as TransactionReceipt;
      // Balances at the mint's block and the block before (block tags also avoid ethers' 250 ms call cache).
      const before = await balances([minter, receiver, env.treasury], receipt.blockNumber - 1);
      const after = await balances([minter, receiver, env.treasury], receipt.blockNumber);
      const gas = receipt.gasUsed * receipt.gasPrice;
      expect(after[0]).toBe((before[0] ?? 0n) - price - fee - gas); // excess refunded
      expect(after[1]).toBe((before[1] ?? 0n) + price);
      expect(after[2]).toBe((before[2] ?? 0n) + fee);

      expect(await env.chain.ens.registryOwner('alice.mint.eth')).toBe(newOwner);
      expect(await env.chain.ens.resolverOf('alice.mint.eth')).toBe(
        getAddress(env.chain.contracts.publicResolver),
      );
      const resolver = new Contract(env.chain.contracts.publicResolver, resolverIface, env.provider);
      expect(await resolver.getFunction('text').staticCall(node, 'url')).toBe('https://alice.example');
      expect(await resolver.getFunction('addr(bytes32)').staticCall(node)).toBe(newOwner);

      const event = receipt.logs
        .map((log) => env.controller.interface.parseLog(log))
        .find((parsed) => parsed?.name === 'SubnameMinted');
      expect(event?.args.toObject()).toMatchObject({
        parentNode: namehash('mint.eth'),
        node,
        owner: newOwner,
        label: 'alice',
        price,
        fee,
        paymentReceiver: receiver,
      });

      // The name now exists: the estimate says so, and the same signature cannot mint again.
      const est = await estimate({ parentName: 'mint.eth', label: 'alice', minterAddress: minter });
      expect(est.body.validationErrors).toEqual(['SUBNAME_TAKEN']);
      const replay = await sendMint(env, walletAt(env, 5), mintArgs(res.body, records), price + fee).catch(
        (e: unknown) => e,
      );
      expect(revertName(env, replay)).toBe('SignatureAlreadyUsed');
    });

    it('reverts: tampered price, expired signature, wrong sender, short payment, foreign records, existing name, foreign signer', async () => {
      const res = await mint({ parentName: 'mint.eth', label: 'bobby', minterAddress: minter }).expect(200);
      const args = mintArgs(res.body);
      const [ctx] = args;
      const total = ctx.price + ctx.fee;
      const wallet = walletAt(env, 5);
      const fails = (promise: Promise<unknown>) =>
        promise.then(
          () => 'mined',
          (e: unknown) => revertName(env, e),
        );

      expect(
        await fails(
          sendMint(env, wallet, [{ ...ctx, price: ctx.price - 1n }, ...args.slice(1)] as typeof args, total),
        ),
      ).toBe('InvalidSignature');
      expect(
        await fails(
          sendMint(env, wallet, [{ ...ctx, owner: newOwner }, ...args.slice(1)] as typeof args, total),
        ),
      ).toBe('InvalidSignature');
      expect(await fails(sendMint(env, walletAt(env, 7), args, total))).toBe('UnauthorisedMinter');
      expect(await fails(sendMint(env, wallet, args, total - 1n))).toBe('InsufficientPayment');
      const otherNode = namehash('taken.mint.eth');
      const foreign = [
        resolverIface.encodeFunctionData('setText', [otherNode, 'url', 'https://evil.example']),
      ];
      expect(await fails(sendMint(env, wallet, [args[0], args[1], foreign, '0x'], total))).toBe(
        'ResolverDataNotForNode',
      );

      // A signature made an hour ago with a 10-minute lifetime.
      env.clock.offsetMs = -3600 * 1000;
      const old = await mint({ parentName: 'mint.eth', label: 'bobby', minterAddress: minter }).expect(200);
      env.clock.offsetMs = 0;
      expect(await fails(sendMint(env, wallet, mintArgs(old.body), total))).toBe('SignatureExpired');

      // A valid signature from the service's key for a name that exists (the service itself would refuse).
      const takenCtx = { ...ctx, label: 'taken' };
      const takenSig = await signMintContext(
        new Wallet(MINT_SIGNER_KEY),
        SEPOLIA,
        env.controllerAddress,
        takenCtx,
      );
      expect(await fails(sendMint(env, wallet, [takenCtx, takenSig, [], '0x'], total))).toBe(
        'NameAlreadyExists',
      );

      // The same parameters signed by a key the controller does not trust.
      const foreignSig = await signMintContext(Wallet.createRandom(), SEPOLIA, env.controllerAddress, ctx);
      expect(await fails(sendMint(env, wallet, [ctx, foreignSig, [], '0x'], total))).toBe('InvalidSignature');

      // Nothing was minted by the failures; the genuine parameters still work.
      expect(await env.chain.ens.registryOwner('bobby.mint.eth')).toBe(
        '0x0000000000000000000000000000000000000000',
      );
      expect(await fails(sendMint(env, wallet, args, total))).toBe('mined');
      expect(await env.chain.ens.registryOwner('bobby.mint.eth')).toBe(minter);
    });

    it('mints under a wrapped parent through the NameWrapper, with fuses, capped expiry and records', async () => {
      const res = await mint({
        parentName: 'wrapped.eth',
        label: 'carol',
        minterAddress: minter,
        expiryInYears: 5,
      }).expect(200);
      const registrar = env.chain.ens.contract('baseRegistrar');
      const parentExpiry = Number(
        await registrar.getFunction('nameExpires').staticCall(BigInt(labelhash('wrapped'))),
      );
      expect(res.body.content).toMatchObject({
        fuses: 65536,
        expiry: parentExpiry,
        paymentReceiver: wrappedOwner,
        price: String(10n * MILLI),
        fee: '1000',
      });
      const node = namehash('carol.wrapped.eth');
      const records = [resolverIface.encodeFunctionData('setText', [node, 'description', 'wrapped mint'])];
      const total = BigInt(res.body.content.price) + BigInt(res.body.content.fee);
      const receipt = (await sendMint(
        env,
        walletAt(env, 5),
        mintArgs(res.body, records),
        total,
      )) as TransactionReceipt;
      const [receiverBefore, treasuryBefore] = await balances(
        [wrappedOwner, env.treasury],
        receipt.blockNumber - 1,
      );
      const [receiverAfter, treasuryAfter] = await balances(
        [wrappedOwner, env.treasury],
        receipt.blockNumber,
      );
      expect(receiverAfter).toBe((receiverBefore ?? 0n) + BigInt(res.body.content.price));
      expect(treasuryAfter).toBe((treasuryBefore ?? 0n) + BigInt(res.body.content.fee));

      const wrapper = env.chain.ens.contract('nameWrapper');
      const [owner, fuses, expiry] = (await wrapper.getFunction('getData').staticCall(BigInt(node))) as [
        string,
        bigint,
        bigint,
      ];
      expect(owner).toBe(minter);
      expect(fuses).toBe(65536n);
      expect(Number(expiry)).toBe(parentExpiry);
      expect(await env.chain.ens.registryOwner('carol.wrapped.eth')).toBe(
        getAddress(env.chain.contracts.nameWrapper),
      );
      const resolver = new Contract(env.chain.contracts.publicResolver, resolverIface, env.provider);
      expect(await resolver.getFunction('text').staticCall(node, 'description')).toBe('wrapped mint');

      const est = await estimate({ parentName: 'wrapped.eth', label: 'carol', minterAddress: minter });
      expect(est.body.validationErrors).toEqual(['SUBNAME_TAKEN']);
    });
  });

  describe('readiness', () => {
    it('is ready while the controller trusts the signer, 503 once the owner removes it', async () => {
      const ready = await request(env.app).get('/ready').expect(200);
      expect(ready.body.checks['sepolia-controller']).toBe('ok');
      const signerAddress = new Wallet(MINT_SIGNER_KEY).address;
      const ownerWallet = walletAt(env, 0);
      await env.chain.ens.send(env.controller, ownerWallet, 'setSigner', [signerAddress, false]);
      try {
        const res = await request(env.app).get('/ready').expect(503);
        expect(res.body.checks['sepolia-controller']).toMatch(/does not trust signer/);
        // Only the owner manages signers.
        const stranger = walletAt(env, 7);
        await expect(
          env.chain.ens.send(env.controller, stranger, 'setSigner', [signerAddress, true]),
        ).rejects.toThrow();
      } finally {
        await env.chain.ens.send(env.controller, ownerWallet, 'setSigner', [signerAddress, true]);
      }
      await request(env.app).get('/ready').expect(200);
    });

    it('is 503 when the controller pays a treasury other than TREASURY_ADDRESS', async () => {
      const ownerWallet = walletAt(env, 0);
      const other = accountAt(env.chain, 8).address;
      await expect(
        env.chain.ens.send(env.controller, walletAt(env, 7), 'setTreasury', [other]),
      ).rejects.toThrow();
      await env.chain.ens.send(env.controller, ownerWallet, 'setTreasury', [other]);
      try {
        const res = await request(env.app).get('/ready').expect(503);
        expect(res.body.checks['sepolia-controller']).toMatch(/TREASURY_ADDRESS/);
      } finally {
        await env.chain.ens.send(env.controller, ownerWallet, 'setTreasury', [env.treasury]);
      }
      await request(env.app).get('/ready').expect(200);
    });
  });

  async function balances(addresses: string[], blockTag: number): Promise<bigint[]> {
    return Promise.all(addresses.map((a) => env.provider.getBalance(a, blockTag)));
  }
});
