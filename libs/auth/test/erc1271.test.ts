import { hashMessage, JsonRpcProvider, Wallet } from 'ethers';
import { deployERC1271WalletTestDouble } from '@nrp/contracts';
import type { DatabaseHandle } from '@nrp/db';
import { startAnvil, type AnvilNode } from '@nrp/testkit';
import {
  createNonceStore,
  verifyMessageSignature,
  verifySignIn,
  type NonceTables,
  type PgNonceStore,
  type SignInContext,
} from '../src';
import { alice, CHAIN_ID, expectRejection, openNonceDatabase, siweMessage, viemMessage } from './support';

const now = new Date('2026-11-22T10:00:00.000Z');

let anvil: AnvilNode;
let provider: JsonRpcProvider;
let handle: DatabaseHandle<NonceTables>;
let nonces: PgNonceStore;
let ctx: SignInContext;
/** A contract wallet owned by `owner`; its owner signs the raw EIP-191 digest of the message. */
let walletAddress: string;
let owner: Wallet;
/** A contract with code but without isValidSignature (its runtime code is a single STOP). */
let notAWallet: string;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  // No request cache: two deployments in a row must not reuse a cached account nonce.
  provider = new JsonRpcProvider(anvil.rpcUrl, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  const [deployerAccount, ownerAccount] = anvil.accounts;
  if (!deployerAccount || !ownerAccount) throw new Error('anvil has no accounts');
  const deployer = new Wallet(deployerAccount.privateKey, provider);
  owner = new Wallet(ownerAccount.privateKey);
  const wallet = await deployERC1271WalletTestDouble(deployer, owner.address);
  walletAddress = await wallet.getAddress();
  const tx = await deployer.sendTransaction({ data: '0x6001600c60003960016000f300' });
  const receipt = await tx.wait();
  if (!receipt?.contractAddress) throw new Error('no contract address');
  notAWallet = receipt.contractAddress;

  handle = await openNonceDatabase();
  nonces = createNonceStore(handle.db, { ttlMs: 300_000 });
  ctx = { domains: ['app.example.com'], chainId: CHAIN_ID, scope: 'avatar', nonces, provider, now };
});

afterAll(async () => {
  provider?.destroy();
  await handle?.close();
  await anvil?.stop();
});

async function contractWalletRequest(signer: Wallet, build = siweMessage, address = walletAddress) {
  const { nonce } = await nonces.issue(address, 'avatar', now);
  const message = build({ address, nonce, issuedAt: now });
  return { message, signature: signer.signingKey.sign(hashMessage(message)).serialized, address };
}

describe('ERC-1271 contract wallet sign-in', () => {
  it.each([
    ['siwe', siweMessage],
    ['viem', viemMessage],
  ])('signs in a contract wallet (message built by %s) and consumes the nonce', async (_name, build) => {
    const request = await contractWalletRequest(owner, build);
    // The signature does not recover to the wallet address: only ERC-1271 can accept it.
    await expect(
      verifyMessageSignature(walletAddress, request.message, request.signature),
    ).resolves.toBeUndefined();
    await expect(verifySignIn(request, ctx)).resolves.toMatchObject({
      address: walletAddress,
      signatureKind: 'erc1271',
    });
    await expectRejection(verifySignIn(request, ctx), 'INVALID_NONCE', /already used/);
  });

  it('refuses a signature by a key that does not own the wallet, without burning the nonce', async () => {
    const request = await contractWalletRequest(alice); // the wallet's owner is anvil account 1, alice is account 0
    await expectRejection(verifySignIn(request, ctx), 'INVALID_SIGNATURE', /not valid for/);
    const good = { ...request, signature: owner.signingKey.sign(hashMessage(request.message)).serialized };
    await expect(verifySignIn(good, ctx)).resolves.toMatchObject({ signatureKind: 'erc1271' });
  });

  it('refuses a contract wallet signature when no provider is configured', async () => {
    const request = await contractWalletRequest(owner);
    await expectRejection(verifySignIn(request, { ...ctx, provider: undefined }), 'INVALID_SIGNATURE');
  });

  it('refuses a contract without isValidSignature, and an address without code', async () => {
    const atStop = await contractWalletRequest(owner, siweMessage, notAWallet);
    await expectRejection(verifySignIn(atStop, ctx), 'INVALID_SIGNATURE');
    const eoa = await contractWalletRequest(owner, siweMessage, alice.address);
    await expectRejection(verifySignIn(eoa, ctx), 'INVALID_SIGNATURE');
  });

  it('still verifies plain accounts by ecrecover when a provider is configured', async () => {
    const { nonce } = await nonces.issue(alice.address, 'avatar', now);
    const message = siweMessage({ address: alice.address, nonce, issuedAt: now });
    await expect(
      verifySignIn({ message, signature: await alice.signMessage(message), address: alice.address }, ctx),
    ).resolves.toMatchObject({ signatureKind: 'eoa' });
  });

  it('answers 502 UPSTREAM_ERROR when the RPC node is down', async () => {
    const request = await contractWalletRequest(owner);
    const dead = new JsonRpcProvider('http://127.0.0.1:9', CHAIN_ID, { staticNetwork: true });
    try {
      await expectRejection(
        verifySignIn(request, { ...ctx, provider: dead }),
        'UPSTREAM_ERROR',
        /ERC-1271/,
        502,
      );
    } finally {
      dead.destroy();
    }
    // The node failing did not burn the nonce either.
    await expect(verifySignIn(request, ctx)).resolves.toMatchObject({ signatureKind: 'erc1271' });
  });
});
