/**
 * The prover's HTTP server stops as a service does (`npm run prover` and its image call `close()` on SIGTERM): a
 * lookup in flight when closing starts is answered, on a connection then closed; a new connection is refused; a
 * lookup still running after the grace period is cut. Real anvils, the dev rollup with a posted root, and the real
 * prover, whose L1 RPC goes through a proxy: the lookup's first L1 call is where the test starts closing.
 */
import { GATEWAY_ABI, GatewayRequest } from '@unruggable/gateways';
import { JsonRpcProvider, MaxUint256, toBeHex } from 'ethers';
// Direct module imports: the testkit index also pulls in the S3/database/Redis helpers, not needed here.
import { startAnvil, type AnvilNode } from '@nrp/testkit/src/anvil';
import { deployDevRollup, type DevRollup } from '@nrp/testkit/src/dev-rollup';
import { startRpcProxy, type RpcProxy } from '@nrp/testkit/src/rpc-proxy';
import { createL2Prover, startL2ProverServer, type L2ProverServer } from '../src';

describe('startL2ProverServer: close()', () => {
  let l1: AnvilNode;
  let l2: AnvilNode;
  let rollup: DevRollup;
  let proxy: RpcProxy;
  let l1Provider: JsonRpcProvider;
  let l2Provider: JsonRpcProvider;
  let server: L2ProverServer | undefined;

  beforeAll(async () => {
    [l1, l2] = await Promise.all([startAnvil(), startAnvil({ chainId: 84532 })]);
    rollup = await deployDevRollup({
      l1RpcUrl: l1.rpcUrl,
      l2RpcUrl: l2.rpcUrl,
      operatorKey: l1.accounts[7]?.privateKey ?? '',
      gatewayUrls: [],
      windowSeconds: 30,
    });
    await rollup.propose();
    proxy = await startRpcProxy(l1.rpcUrl);
    l1Provider = new JsonRpcProvider(proxy.url, undefined, { staticNetwork: true });
    l2Provider = new JsonRpcProvider(l2.rpcUrl, undefined, { staticNetwork: true });
  }, 60_000);

  afterEach(async () => {
    proxy.setFault(undefined);
    await server?.close();
  });

  afterAll(async () => {
    l1Provider?.destroy();
    l2Provider?.destroy();
    rollup?.stop();
    await proxy?.stop();
    await Promise.all([l1?.stop(), l2?.stop()]);
  });

  /** A lookup as ProvenL2Resolver sends it: the latest root, and one storage slot of an L2 account. */
  const lookup = () =>
    JSON.stringify({
      sender: '0x000000000000000000000000000000000000dEaD',
      data: GATEWAY_ABI.encodeFunctionData('proveRequest', [
        toBeHex(MaxUint256, 32),
        [
          new GatewayRequest(1)
            .setTarget(l2.accounts[0]?.address ?? '')
            .setSlot(0)
            .read()
            .setOutput(0)
            .encode(),
        ],
      ]),
    });

  async function startServer(graceMs: number): Promise<L2ProverServer> {
    const prover = createL2Prover({
      l1: l1Provider,
      l2: l2Provider,
      rollup: rollup.proverRollup,
      commitPollMs: 0,
    });
    server = await startL2ProverServer(prover, {
      host: '127.0.0.1',
      port: 0,
      onError: () => undefined,
      graceMs,
    });
    return server;
  }

  it('answers the lookup in flight, closes its connection, refuses new ones, then resolves', async () => {
    const prover = await startServer(60_000);
    let closed: Promise<void> | undefined;
    proxy.setFault(() => {
      closed ??= prover.close();
      return undefined;
    });
    const answer = await fetch(prover.url, { method: 'POST', body: lookup() });
    expect(closed).toBeDefined();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    expect(((await answer.json()) as { data: string }).data).toMatch(/^0x([0-9a-f]{64})+$/);
    await closed;
    await expect(fetch(prover.url, { method: 'POST', body: lookup() })).rejects.toThrow('fetch failed');
  }, 30_000);

  it('cuts a lookup still running after the grace period', async () => {
    const prover = await startServer(100);
    let closed: Promise<void> | undefined;
    proxy.setFault(() => {
      closed ??= prover.close();
      return 'hang';
    });
    await expect(fetch(prover.url, { method: 'POST', body: lookup() })).rejects.toThrow('fetch failed');
    expect(closed).toBeDefined();
    await closed;
  }, 30_000);
});
