import { gunzipSync } from 'node:zlib';
import { EnsPlugin, JsonRpcProvider, Network, Wallet, ZeroAddress } from 'ethers';
import { namehash } from '@nrp/ens';
import { startAnvil, type AnvilNode } from '../src/anvil';
import { deployEns, EnsFixture, startEnsChain, type EnsChain } from '../src/ens-fixture';

describe('ENS fixture on anvil, read with plain ethers v6', () => {
  let chain: EnsChain;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    chain = await startEnsChain();
    const network = new Network('sepolia', 11155111);
    network.attachPlugin(new EnsPlugin(chain.contracts.ensRegistry, 11155111));
    provider = new JsonRpcProvider(chain.anvil.rpcUrl, network, { staticNetwork: network });
  });

  afterAll(async () => {
    provider?.destroy();
    await chain?.stop();
  });

  it('deploys ENS with eth owned by the BaseRegistrar and addr.reverse by the ReverseRegistrar', async () => {
    const { ens, contracts } = chain;
    expect(await ens.registryOwner('eth')).toBe(contracts.baseRegistrar);
    expect(await ens.registryOwner('addr.reverse')).toBe(contracts.reverseRegistrar);
    const defaultResolver = await ens
      .contract('reverseRegistrar')
      .getFunction('defaultResolver')
      .staticCall();
    expect(defaultResolver).toBe(contracts.publicResolver);
  });

  it('resolves a registered .eth name: resolver, text, addr, contenthash', async () => {
    const [, alice] = chain.accounts;
    if (!alice) throw new Error('no account');
    const { ens } = chain;
    const { name, node } = await ens.registerEthName('alice', alice.address);
    expect(node).toBe(namehash('alice.eth'));
    await ens.setText(name, 'com.github', 'alice-gh');
    await ens.setAddr(name, alice.address);
    await ens.setContenthash(
      name,
      '0xe3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f',
    );
    // BTC (coin type 0) is stored as its output script (ENSIP-9)
    await ens.setAddrForCoin(name, 0, '0x76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac');

    const resolver = await provider.getResolver(name);
    expect(resolver?.address).toBe(chain.contracts.publicResolver);
    expect(await resolver?.getText('com.github')).toBe('alice-gh');
    expect(await resolver?.getText('missing')).toBe(''); // ethers returns the empty string as is
    expect(await provider.resolveName(name)).toBe(alice.address);
    // ethers has no BTC decoder without a plugin: read the raw bytes
    const btc = await ens.contract('publicResolver').getFunction('addr(bytes32,uint256)').staticCall(node, 0);
    expect(btc).toBe('0x76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac');
    expect(await resolver?.getContentHash()).toBe('ipfs://QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4');
  });

  it('resolves subnames, no-resolver names and wrapped names', async () => {
    const [, , bob, carol] = chain.accounts;
    if (!bob || !carol) throw new Error('no account');
    const { ens } = chain;
    await ens.registerEthName('bob', bob.address);
    await ens.createSubname('bob.eth', 'pay', carol.address);
    await ens.setAddr('pay.bob.eth', carol.address);
    expect(await provider.resolveName('pay.bob.eth')).toBe(carol.address);

    await ens.createSubname('bob.eth', 'bare', carol.address, { resolver: null });
    expect(await provider.getResolver('bare.bob.eth')).toBeNull();
    expect(await provider.resolveName('bare.bob.eth')).toBeNull();
    expect(await provider.getResolver('never-registered.eth')).toBeNull();

    await ens.wrapName('bob.eth', carol.address);
    expect(await ens.registryOwner('bob.eth')).toBe(chain.contracts.nameWrapper);
    expect(await ens.effectiveOwner('bob.eth')).toBe(carol.address);
    const wrapper = ens.contract('nameWrapper');
    expect(await wrapper.getFunction('names').staticCall(namehash('bob.eth'))).toBe(
      '0x03626f6203657468' + '00',
    );
    // the token owner can still edit records on the public resolver
    await ens.setText('bob.eth', 'url', 'https://bob.example');
    expect(await (await provider.getResolver('bob.eth'))?.getText('url')).toBe('https://bob.example');
    // and create wrapped subnames
    await ens.createSubname('bob.eth', 'w', bob.address);
    expect(await ens.effectiveOwner('w.bob.eth')).toBe(bob.address);
    expect(await wrapper.getFunction('names').staticCall(namehash('w.bob.eth'))).toBe(
      '0x0177' + '03626f6203657468' + '00',
    );
    const [owner] = (await wrapper.getFunction('getData').staticCall(BigInt(namehash('w.bob.eth')))) as [
      string,
    ];
    expect(owner).toBe(bob.address);
  });

  it('reverse-resolves with lookupAddress once the primary name is set and verified', async () => {
    const [, , , , dave] = chain.accounts;
    if (!dave) throw new Error('no account');
    const { ens } = chain;
    expect(await provider.lookupAddress(dave.address)).toBeNull();
    await ens.registerEthName('dave', dave.address);
    await ens.setAddr('dave.eth', dave.address);
    await ens.setReverseName(dave.address, 'dave.eth');
    expect(await provider.lookupAddress(dave.address)).toBe('dave.eth');
    // a primary name that does not resolve back is not returned
    await ens.setAddr('dave.eth', ZeroAddress.replace(/0$/, '1'));
    expect(await provider.lookupAddress(dave.address)).toBeNull();
  });
});

/** EIP-2935's history contract (a system contract since Prague). */
const BLOCK_HASH_HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';

describe('the ENS deployment kept on this machine', () => {
  const nodes: AnvilNode[] = [];
  const fixtures: EnsFixture[] = [];

  afterAll(async () => {
    for (const fixture of fixtures) fixture.destroy();
    await Promise.all(nodes.map((node) => node.stop()));
  });

  async function newChain(): Promise<{ node: AnvilNode; key: string }> {
    const node = await startAnvil();
    nodes.push(node);
    return { node, key: node.accounts[0]?.privateKey ?? '' };
  }

  async function rpc(node: AnvilNode, method: string, params: unknown[] = []): Promise<unknown> {
    const res = await fetch(node.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  }

  /**
   * Every account of the chain (balance, nonce, code and storage) but EIP-2935's history contract, which stores the
   * hashes of past blocks, and those differ from chain to chain by their times.
   */
  async function accounts(node: AnvilNode): Promise<Record<string, unknown>> {
    const dump = Buffer.from(String(await rpc(node, 'anvil_dumpState')).slice(2), 'hex');
    const state = JSON.parse(gunzipSync(dump).toString('utf8')) as { accounts: Record<string, unknown> };
    const { [BLOCK_HASH_HISTORY]: history, ...rest } = state.accounts;
    expect(history).toBeDefined();
    return rest;
  }

  const blockHash = async (node: AnvilNode, number: number) =>
    ((await rpc(node, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { hash: string }).hash;

  it('a new chain loads it: every account as a deployment of its own leaves it, blocks included', async () => {
    const fresh = await newChain();
    fixtures.push(await EnsFixture.deploy(fresh.node.rpcUrl, fresh.key));
    // The first keeps the deployment if this machine has none yet; the second loads it.
    const first = await newChain();
    fixtures.push(await deployEns(first.node.rpcUrl, first.key));
    const second = await newChain();
    const loaded = await deployEns(second.node.rpcUrl, second.key);
    fixtures.push(loaded);

    expect(await accounts(second.node)).toEqual(await accounts(fresh.node));
    expect(await blockHash(second.node, 1)).toBe(await blockHash(first.node, 1));
    expect(loaded.addresses).toEqual(fixtures[0]?.addresses);
    const [, alice] = second.node.accounts;
    await loaded.registerEthName('kept', alice?.address ?? '');
    expect(await loaded.registryOwner('kept.eth')).toBe(alice?.address);
  });

  it('a chain that has a block already gets a deployment of its own, and keeps what it had', async () => {
    const used = await newChain();
    const [, , , , , sender] = used.node.accounts;
    const receiver = Wallet.createRandom().address;
    await rpc(used.node, 'eth_sendTransaction', [{ from: sender?.address, to: receiver, value: '0x1' }]);
    const fixture = await deployEns(used.node.rpcUrl, used.key);
    fixtures.push(fixture);
    expect(await rpc(used.node, 'eth_getBalance', [receiver, 'latest'])).toBe('0x1');
    expect(await rpc(used.node, 'eth_getTransactionCount', [sender?.address, 'latest'])).toBe('0x1');
    expect(await fixture.registryOwner('eth')).toBe(fixture.addresses.baseRegistrar);
  });
});
