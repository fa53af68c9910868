import { getAddress } from 'ethers';
// Direct module import: the testkit index also pulls in the S3/database/Redis helpers, not needed here.
import { startL2Chain, type L2Chain } from '@nrp/testkit/src/l2-chain';
import {
  L2ParentDirectory,
  createL2Providers,
  isUpstreamError,
  l2NetworksEnvSchema,
  l2NetworksFromEnv,
  type RpcCall,
} from '../src';

describe('L2ParentDirectory against real L2Registry contracts', () => {
  let l2: L2Chain;
  let directory: L2ParentDirectory;
  const onShutdown: Array<() => Promise<void>> = [];
  /** The eth_calls sent to the L2 since the test began. */
  const calls: RpcCall[] = [];
  const ethCalls = () => calls.filter((call) => call.method === 'eth_call').length;

  beforeAll(async () => {
    l2 = await startL2Chain();
    const networks = l2NetworksFromEnv(l2NetworksEnvSchema.parse({ BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl }));
    const providers = createL2Providers(networks, () => (call) => calls.push(call), onShutdown);
    directory = new L2ParentDirectory(providers);
  });

  beforeEach(() => {
    calls.length = 0;
  });

  afterAll(async () => {
    for (const close of onShutdown) await close();
    await l2?.stop();
  });

  it("reads a registry's parent name once, whatever the case of its address; concurrent questions share the read", async () => {
    const registry = await l2.deployRegistry('once.eth');
    const answers = await Promise.all([
      directory.parentName('base-sepolia', registry),
      directory.parentName('base-sepolia', registry.toLowerCase()),
    ]);
    expect(answers).toEqual(['once.eth', 'once.eth']);
    expect(await directory.parentName('base-sepolia', getAddress(registry))).toBe('once.eth');
    expect(ethCalls()).toBe(1);
  });

  it('keeps each registry apart', async () => {
    const first = await l2.deployRegistry('first.eth');
    const second = await l2.deployRegistry('sub.second.eth');
    expect(await directory.parentName('base-sepolia', first)).toBe('first.eth');
    expect(await directory.parentName('base-sepolia', second)).toBe('sub.second.eth');
    expect(ethCalls()).toBe(2);
  });

  it('an address that is no L2Registry is an upstream error, not remembered: the next question reads again', async () => {
    const notARegistry = l2.account(5).address;
    for (let attempt = 0; attempt < 2; attempt++) {
      const err = await directory.parentName('base-sepolia', notARegistry).catch((e: unknown) => e);
      expect(isUpstreamError(err)).toBe(true);
    }
    expect(ethCalls()).toBe(2);
  });
});
