/**
 * Uploads for an L2 name: the L1 registry holds no owner for it, so its owner is the holder of its token on the
 * served L2 registry of its parent (a live token only). For `l2.eth` the L1 record is set on a plain subnode of the
 * test chain whose registry owner is then cleared: it stands in for the parent's L2NameResolver and its gateway
 * (offchain-svc's), which give the same answer, the record, with no owner on the L1. `proven.eth` is a parent on
 * ProvenL2Resolver for real: its subname's record is set on the L2 and read on the L1 through storage proofs.
 */
import request from 'supertest';
import { ZeroAddress, type Wallet } from 'ethers';
import type { Address } from 'viem';
import { labelhash, namehash, tokenIdFromNamehash } from '@nrp/ens';
import {
  expectProblem,
  l2RegistryAbi,
  startL2Chain,
  startProvenL2Parent,
  type EnsChain,
  type L2Chain,
  type ProvenL2Parent,
} from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  BASE_URL,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  upload,
  walletOf,
  type MetadataService,
} from './support';

const NAME = 'alice.l2.eth';
const imagePath = `/profile/sepolia/${NAME}/avatar`;
const PROVEN_NAME = 'carol.proven.eth';
const provenImagePath = `/profile/sepolia/${PROVEN_NAME}/avatar`;

let chain: EnsChain;
let l2: L2Chain;
let registry: Address;
let provenParent: ProvenL2Parent;
let provenRegistry: Address;
let h: MetadataService;
let alice: Wallet;
let bob: Wallet;
let image: Buffer;

beforeAll(async () => {
  [chain, l2] = await Promise.all([startEnsChain({ chainId: 11155111 }), startL2Chain()]);
  registry = await l2.deployRegistry('l2.eth', { ownerIsController: true });
  alice = walletOf(chain, 1);
  bob = walletOf(chain, 2);
  image = await png();
  await l2.register(registry, 'alice', alice.address, (await l2.now()) + 86400n);
  const deployer = walletOf(chain, 0).address;
  await chain.ens.registerEthName('l2', deployer);
  await chain.ens.createSubname('l2.eth', 'alice', deployer);
  await chain.ens.setText(NAME, 'avatar', stableImageUrl(BASE_URL, 'sepolia', NAME, 'avatar'));
  await chain.ens.send(chain.ens.contract('ensRegistry'), chain.ens.signerOf(deployer), 'setSubnodeOwner', [
    namehash('l2.eth'),
    labelhash('alice'),
    ZeroAddress,
  ]);
  // carol.proven.eth: its holder (alice) sets its avatar on the L2; the L1 reads it through the proven parent.
  provenRegistry = await l2.deployRegistry('proven.eth', { ownerIsController: true });
  await l2.register(provenRegistry, 'carol', alice.address, (await l2.now()) + 365n * 86400n);
  await l2.send(l2.account(1), provenRegistry, l2RegistryAbi, 'setText', [
    namehash(PROVEN_NAME),
    'avatar',
    stableImageUrl(BASE_URL, 'sepolia', PROVEN_NAME, 'avatar'),
  ]);
  const operator = chain.accounts[9];
  if (!operator) throw new Error('anvil accounts');
  provenParent = await startProvenL2Parent(chain, l2.anvil, {
    parentName: 'proven.eth',
    registry: provenRegistry,
    owner: deployer,
    operatorKey: operator.privateKey,
  });
  h = await startMetadataService(chain, {
    BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
    BASE_SEPOLIA_L2_REGISTRIES: `${registry},${provenRegistry}`,
    CCIP_READ_ALLOWED_ORIGINS: new URL(provenParent.proverUrl).origin,
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await provenParent?.close();
  await l2?.stop();
  await chain?.stop();
});

describe('the owner of an L2 name is its holder on the L2 registry', () => {
  it('the holder uploads and the image is confirmed at once (its record is set); anyone else is refused', async () => {
    const app = h.app;
    expectProblem(
      await upload(app, imagePath, 'avatar', image, await signedFields(app, bob)),
      403,
      'NOT_SUBNAME_OWNER',
    );
    const res = await upload(app, imagePath, 'avatar', image, await signedFields(app, alice)).expect(200);
    expect(res.body).toMatchObject({ subname: NAME, isUpdate: false });
    expect(res.body.pending).toBeFalsy();
    await request(app).get(imagePath).expect(200);
  });

  it('only the holder deletes; once the L2 name has expired nobody owns it', async () => {
    const app = h.app;
    expectProblem(
      await request(app)
        .delete(imagePath)
        .send(await signedFields(app, bob)),
      403,
      'NOT_SUBNAME_OWNER',
    );
    await request(app)
      .delete(imagePath)
      .send(await signedFields(app, alice))
      .expect(200);

    await l2.increaseTime(2 * 86400);
    expectProblem(
      await upload(app, imagePath, 'avatar', image, await signedFields(app, alice)),
      403,
      'NOT_SUBNAME_OWNER',
    );
  });
});

describe('an L2 name under a parent on ProvenL2Resolver: the same', () => {
  it('its holder uploads and the image is confirmed at once (its record proven from the L2); anyone else is refused', async () => {
    const app = h.app;
    expectProblem(
      await upload(app, provenImagePath, 'avatar', image, await signedFields(app, bob)),
      403,
      'NOT_SUBNAME_OWNER',
    );
    const res = await upload(app, provenImagePath, 'avatar', image, await signedFields(app, alice)).expect(
      200,
    );
    expect(res.body).toMatchObject({ subname: PROVEN_NAME, isUpdate: false });
    expect(res.body.pending).toBeFalsy();
    await request(app).get(provenImagePath).expect(200);
  });

  it('its L2 token metadata and image are served as for any L2 name', async () => {
    const token = `/base-sepolia/${provenRegistry}/${tokenIdFromNamehash(namehash(PROVEN_NAME))}`;
    const metadata = await request(h.app).get(token).expect(200);
    expect(metadata.body).toMatchObject({ name: PROVEN_NAME, image: `${BASE_URL}${token}/image` });
    const image = await request(h.app).get(`${token}/image`).expect(200);
    expect(image.headers['content-type']).toBe('image/png');
  });
});
