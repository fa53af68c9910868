/**
 * The fixture's chain is Sepolia as clients know it: viem's `sepolia` chain, ensjs's `addEnsContracts(sepolia)` and
 * ethers' built-in sepolia network read its names with no chain object or address of the test's own, only its RPC.
 */
import { addEnsContracts, createEnsPublicClient } from '@ensdomains/ensjs';
import { JsonRpcProvider, Network, type EnsPlugin } from 'ethers';
import { createPublicClient, getAddress, http, type Address, type PublicClient } from 'viem';
import { getEnsAddress, getEnsAvatar, getEnsName, getEnsText } from 'viem/actions';
import { sepolia } from 'viem/chains';
import { deployEns, EnsFixtureError, startEnsChain, type EnsChain } from '../src/ens-fixture';

const AVATAR = 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=';

describe('ENS fixture: Sepolia as viem, ensjs and ethers know it', () => {
  let chain: EnsChain;
  let alice: Address;
  let viem: PublicClient;
  let ethers: JsonRpcProvider;
  const ensjs = () =>
    createEnsPublicClient({ chain: addEnsContracts(sepolia), transport: http(chain.anvil.rpcUrl) });

  beforeAll(async () => {
    chain = await startEnsChain();
    const [, first] = chain.accounts;
    if (!first) throw new Error('anvil accounts');
    alice = getAddress(first.address);
    const { ens } = chain;
    await ens.registerEthName('alice', alice);
    await ens.setAddr('alice.eth', alice);
    await ens.setText('alice.eth', 'description', 'on Sepolia');
    await ens.setText('alice.eth', 'avatar', AVATAR);
    await ens.setReverseName(alice, 'alice.eth');
    // wrapped as the NameWrapper wraps a .eth name: it takes the registrar token
    await ens.registerEthName('wrapped', alice);
    const signer = ens.signerOf(alice);
    await ens.send(ens.contract('baseRegistrar'), signer, 'setApprovalForAll', [
      chain.contracts.nameWrapper,
      true,
    ]);
    await ens.send(ens.contract('nameWrapper'), signer, 'wrapETH2LD', [
      'wrapped',
      alice,
      0,
      chain.contracts.publicResolver,
    ]);
    viem = createPublicClient({ chain: sepolia, transport: http(chain.anvil.rpcUrl) });
    ethers = new JsonRpcProvider(chain.anvil.rpcUrl);
  });

  afterAll(async () => {
    ethers?.destroy();
    await chain?.stop();
  });

  it('places every ENS contract, the Universal Resolver and Multicall3 where the clients look', async () => {
    const known = addEnsContracts(sepolia).contracts;
    const ethersRegistry = Network.from('sepolia').getPlugin<EnsPlugin>(
      'org.ethers.plugins.network.Ens',
    )?.address;
    const expected = {
      ensRegistry: known.ensRegistry.address,
      publicResolver: known.ensPublicResolver.address,
      reverseRegistrar: known.ensReverseRegistrar.address,
      defaultReverseRegistrar: known.ensDefaultReverseRegistrar.address,
      baseRegistrar: known.ensBaseRegistrarImplementation.address,
      nameWrapper: known.ensNameWrapper.address,
      universalResolver: sepolia.contracts.ensUniversalResolver.address,
      multicall3: sepolia.contracts.multicall3.address,
    };
    expect(chain.contracts).toMatchObject(
      Object.fromEntries(Object.entries(expected).map(([key, address]) => [key, getAddress(address)])),
    );
    expect(chain.contracts.ensRegistry).toBe(ethersRegistry);
    for (const address of Object.values(chain.contracts))
      expect((await viem.getCode({ address: address as Address }))?.length).toBeGreaterThan(2);
  });

  it('refuses a second deployment on the same chain, whose addresses are taken', async () => {
    const [deployer] = chain.accounts;
    await expect(deployEns(chain.anvil.rpcUrl, deployer?.privateKey ?? '')).rejects.toThrow(EnsFixtureError);
    expect(await chain.ens.registryOwner('eth')).toBe(chain.contracts.baseRegistrar);
  });

  it('viem with chain: sepolia: address, text, avatar and primary name', async () => {
    expect(await getEnsAddress(viem, { name: 'alice.eth' })).toBe(alice);
    expect(await getEnsText(viem, { name: 'alice.eth', key: 'description' })).toBe('on Sepolia');
    expect(await getEnsAvatar(viem, { name: 'alice.eth' })).toBe(AVATAR);
    expect(await getEnsName(viem, { address: alice })).toBe('alice.eth');
    expect(await getEnsAddress(viem, { name: 'nobody-here.eth' })).toBeNull();
  });

  it('ensjs with addEnsContracts(sepolia): records, primary name, owner and wrapper data', async () => {
    const client = ensjs();
    const records = await client.getRecords({ name: 'alice.eth', texts: ['description'], coins: ['eth'] });
    expect(records.texts).toEqual([{ key: 'description', value: 'on Sepolia' }]);
    expect(records.coins).toEqual([{ id: 60, name: 'eth', value: alice }]);
    expect(records.resolverAddress).toBe(chain.contracts.publicResolver);
    expect((await client.getName({ address: alice }))?.name).toBe('alice.eth');
    expect(await client.getOwner({ name: 'alice.eth' })).toMatchObject({
      owner: alice,
      ownershipLevel: 'registrar',
    });
    expect(await client.getOwner({ name: 'wrapped.eth' })).toMatchObject({
      owner: alice,
      ownershipLevel: 'nameWrapper',
    });
    expect((await client.getWrapperData({ name: 'wrapped.eth' }))?.owner).toBe(alice);
  });

  it('ethers JsonRpcProvider with its own sepolia network: resolveName and lookupAddress', async () => {
    expect((await ethers.getNetwork()).name).toBe('sepolia');
    expect(await ethers.resolveName('alice.eth')).toBe(alice);
    expect(await ethers.lookupAddress(alice)).toBe('alice.eth');
    const [deployer] = chain.accounts;
    expect(await ethers.lookupAddress(deployer?.address ?? '')).toBeNull();
    // ethers 6 asks Sepolia's Universal Resolver for the resolver (requireResolver) and lets its error through
    await expect(ethers.resolveName('nobody-here.eth')).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'ResolverNotFound(bytes)',
    });
  });
});
