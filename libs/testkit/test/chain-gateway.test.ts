import { EnsPlugin, JsonRpcProvider, Network, Wallet, dataSlice } from 'ethers';
import { dnsEncode, namehash } from '@nrp/ens';
import { resolverInterface } from '@nrp/chain';
import { startEnsChain, type EnsChain } from '../src/ens-fixture';
import { answerResolverCall, startTestGateway, type TestGateway } from '../src/test-gateway';

describe('test gateway', () => {
  const signer = Wallet.createRandom();
  let chain: EnsChain;
  let gateway: TestGateway;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    chain = await startEnsChain();
    const [, owner] = chain.accounts;
    if (!owner) throw new Error('accounts');
    gateway = await startTestGateway({
      signerKey: signer.privateKey,
      records: { 'pay.off.eth': { addr: owner.address, texts: { avatar: 'https://img.example/pay.png' } } },
    });
    const resolver = await chain.ens.deployEnsOffchainResolver(gateway.url, [signer.address]);
    await chain.ens.registerEthName('off', owner.address, { resolver });
    const network = new Network('sepolia', 11155111);
    network.attachPlugin(new EnsPlugin(chain.contracts.ensRegistry, 11155111));
    provider = new JsonRpcProvider(chain.anvil.rpcUrl, network, { staticNetwork: network });
  });

  afterAll(async () => {
    provider?.destroy();
    await gateway?.stop();
    await chain?.stop();
  });

  afterEach(() => gateway.setFault(null));

  it('answers ethers CCIP-Read for a wildcard name under ENS OffchainResolver (signed for {sender})', async () => {
    const [, owner] = chain.accounts;
    const resolver = await provider.getResolver('pay.off.eth');
    expect(await resolver?.supportsWildcard()).toBe(true);
    expect(await resolver?.getText('avatar')).toBe('https://img.example/pay.png');
    expect(await provider.resolveName('pay.off.eth')).toBe(owner?.address);
    expect(await provider.resolveName('unknown.off.eth')).toBeNull();
  });

  it('faults: 500 and garbage answers', async () => {
    const inner = resolverInterface.encodeFunctionData('addr(bytes32)', [namehash('pay.off.eth')]);
    const data = resolverInterface.encodeFunctionData('resolve', [dnsEncode('pay.off.eth'), inner]);
    const url = gateway.url.replace('{sender}', chain.contracts.publicResolver).replace('{data}', data);
    const ok = (await (await fetch(url)).json()) as { data: string };
    expect(ok.data.length).toBeGreaterThan(2 + 64 * 3);
    gateway.setFault('http-500');
    expect((await fetch(url)).status).toBe(500);
    gateway.setFault('garbage');
    const garbage = (await (await fetch(url)).json()) as { data: string };
    expect(garbage.data).toBe('0x67617262616765');
    await expect(provider.resolveName('pay.off.eth')).rejects.toThrow();
  });

  it('answers multicall with one result per call', () => {
    const node = namehash('pay.off.eth');
    const calls = [
      resolverInterface.encodeFunctionData('text', [node, 'avatar']),
      resolverInterface.encodeFunctionData('contenthash', [node]),
      '0x12345678',
    ];
    const answer = answerResolverCall(
      { texts: { avatar: 'x' } },
      resolverInterface.encodeFunctionData('multicall', [calls]),
    );
    const [results] = resolverInterface.decodeFunctionResult('multicall', answer) as unknown as [string[]];
    expect(results).toHaveLength(3);
    expect(resolverInterface.decodeFunctionResult('text', results[0] ?? '0x')[0]).toBe('x');
    expect(results[2]).toBe('0x');
    expect(dataSlice(calls[0] ?? '0x', 0, 4)).toBe('0x59d1d43c');
  });
});
