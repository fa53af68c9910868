/**
 * Estimates, mints and listings of parents whose subnames live on an L2 (base-sepolia): the service signs for the
 * parent's L2MintController on a real 84532 anvil, and the signed answer is minted there with viem.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Wallet } from 'ethers';
import { namehash } from '@nrp/ens';
import { signMintContext } from '../src/mint/sign-mint';
import {
  accountAt,
  deployL2Parent,
  L2_CHAIN_ID,
  type L2Chain,
  type L2ParentContracts,
  l2RegistryAbi,
  MINT_SIGNER_KEY,
  mintArgs,
  mintOnL2,
  mintRevertOnL2,
  revertName,
  sendMint,
  startL2Chain,
  walletAt,
} from '@nrp/testkit';
import { listDirect, type MintService, signIn, startMintService } from './helpers';

const PARENT = 'l2.eth';
const MILLI = 10n ** 15n;

describe('mint-svc with L2 parents (base-sepolia)', () => {
  let env: MintService;
  let l2: L2Chain;
  let served: L2ParentContracts; // l2.eth: registry + enabled controller
  let disabled: L2ParentContracts; // off.eth: the registry has not enabled its controller
  let parentOwner: string; // account 1 on L1: owns l2.eth and off.eth
  let minter: string; // account 5
  const listingsFile = path.join(mkdtempSync(path.join(tmpdir(), 'l2-listings-')), 'listings.json');

  const estimate = (query: Record<string, string | number | boolean>) =>
    request(env.app).get('/api/v1/mint/estimate').query(query);
  const mint = (body: Record<string, unknown>) => request(env.app).post('/api/v1/mint').send(body);
  const paths = (res: { body: { errors?: Array<{ path: string }> } }) =>
    (res.body.errors ?? []).map((e) => e.path).sort();

  beforeAll(async () => {
    l2 = await startL2Chain();
    try {
      env = await startMintService(async (chain) => {
        const treasury = accountAt(chain, 9).address;
        served = await deployL2Parent(l2, PARENT, treasury);
        disabled = await deployL2Parent(l2, 'off.eth', treasury, false);
        // The operator's listings file lists the L2 parents (the served ones and one no controller serves).
        const listing = { basePriceWei: String(MILLI), paymentReceiver: accountAt(chain, 1).address };
        const entries = [PARENT, 'off.eth', 'unserved.eth'].map((parentName) => ({
          network: 'base-sepolia',
          parentName,
          listing,
        }));
        writeFileSync(listingsFile, JSON.stringify(entries));
        return {
          BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
          BASE_SEPOLIA_L2_MINT_CONTROLLERS: `${served.controller}, ${disabled.controller}`,
          LISTINGS_FILE: listingsFile,
        };
      });
    } catch (err) {
      await l2.stop();
      throw err;
    }
    parentOwner = accountAt(env.chain, 1).address;
    minter = accountAt(env.chain, 5).address;
    for (const label of ['l2', 'off', 'unserved']) await env.chain.ens.registerEthName(label, parentOwner);
  });
  afterAll(async () => {
    await env?.close();
    await l2?.stop();
    rmSync(path.dirname(listingsFile), { recursive: true, force: true });
  });

  it('estimates an L2 parent by `network`, and by `isTestnet` alone (sepolia first, then base-sepolia)', async () => {
    const query = { parentName: PARENT, label: 'alpha', minterAddress: minter };
    const byNetwork = await estimate({ ...query, network: 'base-sepolia' }).expect(200);
    expect(byNetwork.body).toMatchObject({
      canMint: true,
      validationErrors: [],
      estimatedPriceWei: String(MILLI),
    });
    const agreeing = await estimate({ ...query, network: 'base-sepolia', isTestnet: true }).expect(200);
    expect(agreeing.body).toEqual(byNetwork.body);
    const byTestnet = await estimate({ ...query, isTestnet: true }).expect(200);
    expect(byTestnet.body).toEqual(byNetwork.body);
    // mainnet and base have no listing of it: the same parent is another listing there
    const mainnet = await estimate(query).expect(404);
    expect(mainnet.body.code).toBe('LISTING_NOT_FOUND');
    expect(mainnet.body.detail).toMatch(/mainnet or base/);
  });

  it('an unknown `network` is 400 naming it; a contradicting `isTestnet` is 400 naming both', async () => {
    const query = { parentName: PARENT, label: 'alpha', minterAddress: minter };
    const unknown = await estimate({ ...query, network: 'optimism' }).expect(400);
    expect(unknown.body.code).toBe('INVALID_INPUT');
    expect(paths(unknown)).toEqual(['query.network']);
    const contradiction = await estimate({ ...query, network: 'base-sepolia', isTestnet: false }).expect(400);
    expect(paths(contradiction)).toEqual(['query.isTestnet', 'query.network']);
    const mainnetTestnet = await estimate({ ...query, network: 'base', isTestnet: true }).expect(400);
    expect(paths(mainnetTestnet)).toEqual(['query.isTestnet', 'query.network']);

    const body = { ...query, expiryInYears: 1 };
    const badBody = await mint({ ...body, network: 'base-goerli' }).expect(400);
    expect(paths(badBody)).toEqual(['body.network']);
    const contradictionBody = await mint({ ...body, network: 'sepolia', isTestnet: false }).expect(400);
    expect(paths(contradictionBody)).toEqual(['body.isTestnet', 'body.network']);
  });

  it('signs for the L2 controller and chain, and the answer mints on the L2 (viem writeContract)', async () => {
    const res = await mint({
      parentName: PARENT,
      label: 'alpha',
      minterAddress: minter,
      isTestnet: true,
    }).expect(200);
    expect(res.body).toMatchObject({ chainId: L2_CHAIN_ID, mintController: served.controller });
    expect(res.body.content).toMatchObject({ parentNode: namehash(PARENT), price: String(MILLI), fuses: 0 });

    await mintOnL2(l2, l2.account(5), served.controller, mintArgs(res.body), MILLI + 1000n);
    const node = namehash(`alpha.${PARENT}`);
    const owner = await l2.client.readContract({
      address: served.registry,
      abi: l2RegistryAbi,
      functionName: 'ownerOf',
      args: [BigInt(node)],
    });
    expect(owner).toBe(minter);
    const expiry = await l2.client.readContract({
      address: served.registry,
      abi: l2RegistryAbi,
      functionName: 'expiries',
      args: [BigInt(node)],
    });
    expect(expiry).toBe(BigInt(res.body.content.expiry));
  });

  it('a label taken on the L2: the estimate says SUBNAME_TAKEN, the mint is 400 MINT_NOT_ALLOWED', async () => {
    const query = { parentName: PARENT, label: 'alpha', minterAddress: minter, network: 'base-sepolia' };
    const est = await estimate(query).expect(200);
    expect(est.body).toMatchObject({ canMint: false, validationErrors: ['SUBNAME_TAKEN'] });
    const refused = await mint(query).expect(400);
    expect(refused.body).toMatchObject({ code: 'MINT_NOT_ALLOWED', validationErrors: ['SUBNAME_TAKEN'] });
  });

  it('the L2 answer is refused by the L1 controller, and the L2 controller refuses an L1-domain signature', async () => {
    const res = await mint({
      parentName: PARENT,
      label: 'beta',
      minterAddress: minter,
      network: 'base-sepolia',
    });
    expect(res.status).toBe(200);
    const args = mintArgs(res.body);
    const onL1 = await sendMint(env, walletAt(env, 5), args, MILLI + 1000n).catch((err: unknown) => err);
    expect(revertName(env, onL1)).toBe('InvalidSignature');

    const l1Domain = await signMintContext(new Wallet(MINT_SIGNER_KEY), 11155111, served.controller, args[0]);
    const wrongChain = await mintRevertOnL2(
      l2,
      l2.account(5),
      served.controller,
      [args[0], l1Domain, [], '0x'],
      MILLI + 1000n,
    );
    expect(wrongChain).toBe('InvalidSignature');
    // the service's own answer is good there
    expect(await mintRevertOnL2(l2, l2.account(5), served.controller, args, MILLI + 1000n)).toBeUndefined();
  });

  it('an L2 parent without a configured controller is 404 LISTING_NOT_FOUND like an unlisted one', async () => {
    const query = { parentName: 'unserved.eth', label: 'abc', minterAddress: minter };
    const est = await estimate({ ...query, network: 'base-sepolia' }).expect(404);
    expect(est.body.code).toBe('LISTING_NOT_FOUND');
    const minted = await mint({ ...query, isTestnet: true }).expect(404);
    expect(minted.body.code).toBe('LISTING_NOT_FOUND');
  });

  it('a registry that has not enabled its controller is 409 PARENT_NOT_APPROVED', async () => {
    const res = await mint({
      parentName: 'off.eth',
      label: 'abc',
      minterAddress: minter,
      network: 'base-sepolia',
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('PARENT_NOT_APPROVED');
    expect(res.body.detail).toContain(disabled.registry);
  });

  describe('listings', () => {
    const listingPath = (network: string, parentName: string) => `/api/v1/listings/${network}/${parentName}`;

    it('GET answers type L2 with l2Metadata (here a LISTINGS_FILE entry); an L1 listing type L1 with null', async () => {
      const res = await request(env.app).get(listingPath('base-sepolia', PARENT)).expect(200);
      expect(res.body).toMatchObject({
        network: 'base-sepolia',
        source: 'file',
        type: 'L2',
        l2Metadata: {
          registryNetwork: 'base-sepolia',
          chainId: L2_CHAIN_ID,
          registryAddress: served.registry,
          mintController: served.controller,
        },
      });
      await listDirect(env, PARENT, { paymentReceiver: parentOwner });
      const l1 = await request(env.app).get(listingPath('sepolia', PARENT)).expect(200);
      expect(l1.body).toMatchObject({ network: 'sepolia', type: 'L1', l2Metadata: null });
    });

    it('a parent no configured controller serves is 404 L2_PARENT_NOT_SERVED; an unknown network 400', async () => {
      const res = await request(env.app).get(listingPath('base-sepolia', 'unserved.eth')).expect(404);
      expect(res.body.code).toBe('L2_PARENT_NOT_SERVED');
      const base = await request(env.app).get(listingPath('base', PARENT)).expect(404);
      expect(base.body.code).toBe('L2_PARENT_NOT_SERVED');
      const unknown = await request(env.app).get(listingPath('optimism', PARENT)).expect(400);
      expect(paths(unknown)).toEqual(['params.network']);
    });

    it("PUT is signed by the parent's owner on the settlement L1 (sepolia's chain id) and answers type L2", async () => {
      const owner = accountAt(env.chain, 1);
      const listing = { basePriceWei: '5', paymentReceiver: owner.address };
      const put = (body: object) => request(env.app).put(listingPath('base-sepolia', PARENT)).send(body);
      const wrongChain = await put({
        ...(await signIn(env.app, owner, { scope: 'listing', chainId: L2_CHAIN_ID })),
        listing,
      });
      expect(wrongChain.status).toBe(401);
      const stranger = await put({
        ...(await signIn(env.app, accountAt(env.chain, 7), { scope: 'listing' })),
        listing,
      });
      expect(stranger.status).toBe(403);
      expect(stranger.body.code).toBe('NOT_PARENT_OWNER');
      const res = await put({ ...(await signIn(env.app, owner, { scope: 'listing' })), listing }).expect(200);
      expect(res.body).toMatchObject({ type: 'L2', basePriceWei: '5', listedBy: owner.address });
      const unserved = await request(env.app)
        .put(listingPath('base-sepolia', 'unserved.eth'))
        .send({ ...(await signIn(env.app, owner, { scope: 'listing' })), listing })
        .expect(404);
      expect(unserved.body.code).toBe('L2_PARENT_NOT_SERVED');
    });
  });

  it('a signature sent after its signatureExpiry reverts SignatureExpired on the L2', async () => {
    const res = await mint({
      parentName: PARENT,
      label: 'late',
      minterAddress: minter,
      network: 'base-sepolia',
    });
    expect(res.status).toBe(200);
    const args = mintArgs(res.body);
    await l2.increaseTime(env.context.config.SIGNATURE_TTL_SECONDS + 60);
    expect(await mintRevertOnL2(l2, l2.account(5), served.controller, args, 10n ** 16n)).toBe(
      'SignatureExpired',
    );
  });

  it('an address in BASE_SEPOLIA_L2_MINT_CONTROLLERS that is no L2 mint controller fails readiness, named', async () => {
    const notAController = accountAt(env.chain, 3).address;
    const misconfigured = await startMintService({
      BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
      BASE_SEPOLIA_L2_MINT_CONTROLLERS: `${served.controller}, ${notAController}`,
    });
    try {
      const ready = await request(misconfigured.app).get('/ready').expect(503);
      expect(ready.body.checks[`base-sepolia-controller-${notAController}`]).toMatch(
        new RegExp(
          `BASE_SEPOLIA_L2_MINT_CONTROLLERS: ${notAController} is not an L2 mint controller on base-sepolia`,
        ),
      );
      expect(ready.body.checks[`base-sepolia-controller-${served.controller}`]).toBe('ok');
    } finally {
      await misconfigured.close();
    }
  });
});
