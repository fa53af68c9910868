import { getAddress } from 'ethers';
import { namehash } from '@nrp/ens';
// Direct module import: the testkit index also pulls in the S3/database/Redis helpers, not needed here.
import { localNetworkConfig, startEnsChain, type EnsChain } from '@nrp/testkit/src/ens-fixture';
import { createProvider, getRegistryResolver, readNameControl, type ChainProvider } from '../src';

describe('readNameControl against the real ENS contracts', () => {
  let chain: EnsChain;
  let provider: ChainProvider;

  beforeAll(async () => {
    chain = await startEnsChain();
    provider = createProvider(localNetworkConfig(chain));
  });

  afterAll(async () => {
    provider?.destroy();
    await chain?.stop();
  });

  it('a registry-owned name is controlled by its registry owner, who is also its .eth registrant', async () => {
    const [, alice] = chain.accounts;
    if (!alice) throw new Error('accounts');
    await chain.ens.registerEthName('plain', alice.address);
    expect(await readNameControl(provider, chain.contracts, 'plain.eth')).toEqual({
      controller: alice.address,
      wrapped: false,
      registrant: alice.address,
    });
  });

  it('a wrapped name is controlled by its NameWrapper owner', async () => {
    const [, alice, bob] = chain.accounts;
    if (!alice || !bob) throw new Error('accounts');
    await chain.ens.registerEthName('wrapped', alice.address);
    await chain.ens.wrapName('wrapped.eth', bob.address);
    const control = await readNameControl(provider, chain.contracts, 'wrapped.eth');
    expect(control).toEqual({ controller: bob.address, wrapped: true, registrant: alice.address });
  });

  it('the .eth registrant alone does not control a name whose registry owner is another address', async () => {
    const [, alice, bob] = chain.accounts;
    if (!alice || !bob) throw new Error('accounts');
    await chain.ens.registerEthName('handed', alice.address);
    await chain.ens.send(chain.ens.contract('ensRegistry'), chain.ens.signerOf(alice.address), 'setOwner', [
      namehash('handed.eth'),
      bob.address,
    ]);
    expect(await readNameControl(provider, chain.contracts, 'handed.eth')).toEqual({
      controller: bob.address,
      wrapped: false,
      registrant: alice.address,
    });
  });

  it('subnames have no registrant; unowned names have no controller', async () => {
    const [, alice, bob] = chain.accounts;
    if (!alice || !bob) throw new Error('accounts');
    await chain.ens.registerEthName('parent', alice.address);
    await chain.ens.createSubname('parent.eth', 'team', bob.address);
    expect(await readNameControl(provider, chain.contracts, 'team.parent.eth')).toEqual({
      controller: bob.address,
      wrapped: false,
      registrant: null,
    });
    expect(await readNameControl(provider, chain.contracts, 'nobody.eth')).toEqual({
      controller: null,
      wrapped: false,
      registrant: null,
    });
  });

  it('getRegistryResolver reads the resolver set on the name itself', async () => {
    expect(await getRegistryResolver(provider, chain.contracts.ensRegistry, 'plain.eth')).toBe(
      getAddress(chain.contracts.publicResolver),
    );
    expect(await getRegistryResolver(provider, chain.contracts.ensRegistry, 'nobody.eth')).toBeNull();
  });
});
