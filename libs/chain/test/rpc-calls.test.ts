import { FetchRequest, JsonRpcProvider, Network } from 'ethers';
// Direct module import: the testkit index also pulls in the S3/database/Redis helpers, not needed here.
import { startAnvil, type AnvilNode } from '@nrp/testkit/src/anvil';
import { observeRpcCalls, type RpcCall } from '../src';

describe('observeRpcCalls', () => {
  let anvil: AnvilNode;
  beforeAll(async () => {
    anvil = await startAnvil({});
  });
  afterAll(async () => {
    await anvil.stop();
  });

  function observed(rpcUrl: string): { provider: JsonRpcProvider; calls: RpcCall[] } {
    const request = new FetchRequest(rpcUrl);
    request.timeout = 2000;
    const network = new Network('sepolia', anvil.chainId);
    const provider = new JsonRpcProvider(request, network, { staticNetwork: network, batchMaxCount: 1 });
    const calls: RpcCall[] = [];
    observeRpcCalls(provider, (call) => calls.push(call));
    return { provider, calls };
  }

  it('reports answered calls as ok and error answers as error, with their method and latency', async () => {
    const { provider, calls } = observed(anvil.rpcUrl);
    try {
      await provider.getBlockNumber();
      await expect(provider.send('nrp_noSuchMethod', [])).rejects.toThrow();
    } finally {
      provider.destroy();
    }
    expect(calls).toEqual([
      { method: 'eth_blockNumber', outcome: 'ok', seconds: expect.any(Number) },
      { method: 'nrp_noSuchMethod', outcome: 'error', seconds: expect.any(Number) },
    ]);
    expect(calls.every((call) => call.seconds > 0)).toBe(true);
  });

  it('reports a node that does not answer as failed', async () => {
    const stopped = await startAnvil({});
    await stopped.stop();
    const { provider, calls } = observed(stopped.rpcUrl);
    try {
      await expect(provider.getBlockNumber()).rejects.toThrow();
    } finally {
      provider.destroy();
    }
    expect(calls.map(({ method, outcome }) => ({ method, outcome }))).toEqual([
      { method: 'eth_blockNumber', outcome: 'failed' },
    ]);
  });
});
