import { JsonRpcProvider, NonceManager, Wallet, ZeroAddress, type Contract } from 'ethers';
import { startAnvil, type AnvilNode } from '@nrp/testkit/src/anvil';
import {
  deployContract,
  deployERC1271WalletTestDouble,
  deployNameWrapperTestDouble,
  universalResolverArtifact,
} from '../src';

describe('test doubles', () => {
  let anvil: AnvilNode;
  let provider: JsonRpcProvider;
  let deployer: NonceManager;
  let owner: Wallet;

  beforeAll(async () => {
    anvil = await startAnvil();
    provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
    const [first, second] = anvil.accounts;
    if (!first || !second) throw new Error('accounts');
    deployer = new NonceManager(new Wallet(first.privateKey, provider));
    owner = new Wallet(second.privateKey, provider);
  });

  afterAll(async () => {
    provider?.destroy();
    await anvil?.stop();
  });

  describe('ERC1271WalletTestDouble', () => {
    let wallet: Contract;
    const hash = '0x' + 'ab'.repeat(32);

    beforeAll(async () => {
      wallet = await deployERC1271WalletTestDouble(deployer, owner.address);
    });

    it('returns the ERC-1271 magic value for a signature of the owner over the raw hash', async () => {
      const sig = owner.signingKey.sign(hash).serialized;
      expect(await wallet.getFunction('isValidSignature').staticCall(hash, sig)).toBe('0x1626ba7e');
    });

    it('returns 0xffffffff for another signer, another hash or malformed bytes', async () => {
      const other = Wallet.createRandom();
      expect(
        await wallet.getFunction('isValidSignature').staticCall(hash, other.signingKey.sign(hash).serialized),
      ).toBe('0xffffffff');
      const sig = owner.signingKey.sign(hash).serialized;
      expect(await wallet.getFunction('isValidSignature').staticCall('0x' + 'cd'.repeat(32), sig)).toBe(
        '0xffffffff',
      );
      expect(await wallet.getFunction('isValidSignature').staticCall(hash, '0x1234')).toBe('0xffffffff');
    });
  });

  describe('NameWrapperTestDouble', () => {
    it('refuses to wrap a name the caller does not own, and subnames of tokens the caller does not hold', async () => {
      // the authorisation check comes first, so no registry is needed for it
      const wrapper = await deployNameWrapperTestDouble(deployer, ZeroAddress);
      const err: unknown = await wrapper
        .getFunction('setSubnodeOwner')
        .staticCall('0x' + '00'.repeat(32), 'x', owner.address, 0, 0)
        .catch((e: unknown) => e);
      expect((err as { revert?: { name?: string } }).revert?.name).toBe('Unauthorised');
      expect(await wrapper.getFunction('supportsInterface').staticCall('0xd9b67a26')).toBe(true);
      expect(await wrapper.getFunction('ownerOf').staticCall(1n)).toBe(ZeroAddress);
    });
  });

  it('deployContract wraps failures in DeployError', async () => {
    await expect(deployContract(deployer, universalResolverArtifact, [])).rejects.toThrow(
      /deploying UniversalResolver failed/,
    );
  });
});
