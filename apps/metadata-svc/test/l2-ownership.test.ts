/**
 * Uploads for an L2 name: the L1 registry holds no owner for it, so its owner is the holder of its token on the
 * served L2 registry of its parent (a live token only). The L1 record is set on a plain subnode of the test chain
 * whose registry owner is then cleared: it stands in for the parent's L2NameResolver and its gateway
 * (offchain-svc's), which give the same answer, the record, with no owner on the L1.
 */
import request from 'supertest';
import { ZeroAddress, type Wallet } from 'ethers';
import type { Address } from 'viem';
import { labelhash, namehash } from '@nrp/ens';
import { expectProblem, startL2Chain, type EnsChain, type L2Chain } from '@nrp/testkit';
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

let chain: EnsChain;
let l2: L2Chain;
let registry: Address;
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
  h = await startMetadataService(chain, {
    BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
    BASE_SEPOLIA_L2_REGISTRIES: registry,
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
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
