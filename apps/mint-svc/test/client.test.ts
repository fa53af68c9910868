import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ServiceError, createMintClient, mintResponseSchemas, type MintClient } from '@nrp/client';
import { type MintService, signIn, startMintService } from './helpers';
import { accountAt, mintArgs, sendMint, walletAt } from '@nrp/testkit';

describe('@nrp/client mint client against the service on a port', () => {
  let env: MintService;
  let server: Server;
  let client: MintClient;

  beforeAll(async () => {
    env = await startMintService();
    await env.chain.ens.registerEthName('club', accountAt(env.chain, 1).address);
    const registry = env.chain.ens.contract('ensRegistry');
    await env.chain.ens.send(registry, walletAt(env, 1), 'setApprovalForAll', [env.controllerAddress, true]);
    server = await new Promise<Server>((resolve) => {
      const s = env.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    client = createMintClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      responseSchemas: mintResponseSchemas,
    });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await env?.close();
  });

  it('nonce, listing, estimate, mint (sent on-chain), minter verification and delete', async () => {
    const owner = accountAt(env.chain, 1);
    const minter = accountAt(env.chain, 4);
    const nonce = await client.requestMintNonce({ address: owner.address, scope: 'listing' });
    expect(nonce.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);

    const signed = await signIn(env.app, owner, { scope: 'listing' });
    const listed = await client.putListing('sepolia', 'club.eth', {
      siweMessage: signed.siweMessage,
      siweSignature: signed.siweSignature,
      address: signed.address,
      listing: { basePriceWei: '3000000000000000', requireVerifiedMinter: true },
    });
    expect(listed).toMatchObject({ parentName: 'club.eth', paymentReceiver: owner.address, source: 'api' });
    expect(await client.getListing('sepolia', 'club.eth')).toEqual(listed);

    const query = { parentName: 'club.eth', label: 'member', minterAddress: minter.address, isTestnet: true };
    const before = await client.getMintEstimate(query);
    expect(before).toMatchObject({ canMint: false, validationErrors: ['VERIFIED_MINTER_ADDRESS_REQUIRED'] });
    const refused = await client.requestMint(query).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ status: 400, code: 'MINT_NOT_ALLOWED' });

    const minterSignIn = await signIn(env.app, minter, { scope: 'minter' });
    const verified = await client.verifyMinter({ network: 'sepolia', ...minterSignIn });
    expect(verified.address).toBe(minter.address);

    const estimate = await client.getMintEstimate({ ...query, expiryInYears: 2 });
    expect(estimate).toMatchObject({
      canMint: true,
      estimatedPriceEth: 0.006,
      estimatedPriceWei: '6000000000000000',
    });
    const signedMint = await client.requestMint({ ...query, expiryInYears: 2 });
    expect(signedMint.content.price).toBe(estimate.estimatedPriceWei);
    expect(signedMint.content.fee).toBe(estimate.estimatedFeeWei);
    const value = BigInt(signedMint.content.price) + BigInt(signedMint.content.fee);
    await sendMint(env, walletAt(env, 4), mintArgs(signedMint), value);
    expect(await env.chain.ens.registryOwner('member.club.eth')).toBe(minter.address);

    const del = await signIn(env.app, owner, { scope: 'listing' });
    const removed = await client.deleteListing('sepolia', 'club.eth', del);
    expect(removed).toMatchObject({ network: 'sepolia', parentName: 'club.eth' });
    const missing = await client.getListing('sepolia', 'club.eth').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'LISTING_NOT_FOUND' });
  });
});
