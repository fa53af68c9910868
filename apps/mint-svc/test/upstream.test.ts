import request from 'supertest';
import { listingInputSchema } from '@nrp/api';
import { namehash } from '@nrp/ens';
import {
  accountAt,
  createTestDatabase,
  startAnvil,
  startTcpProxy,
  startTestService,
  type TcpProxy,
} from '@nrp/testkit';
import { configSchema } from '../src/config';
import type { MintDatabase } from '../src/data/schema';
import { createService } from '../src/service';
import { type MintService, serviceEnv, startMintService } from './helpers';
import { upsertListing } from '../src/data/listings';

const RPC_TIMEOUT_MS = 500;
// What a loaded 2-core machine may add to one timeout: a request must not wait for several timeouts in a row.
const SLACK_MS = 1500;

let env: MintService;
let proxy: TcpProxy;

beforeAll(async () => {
  env = await startMintService();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: env.chain.anvil.port });
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await env?.close();
});

/** A second service on the test chain whose sepolia RPC URL is `rpcUrl`, with rpc.eth listed. */
async function serviceWithRpc(
  rpcUrl: string,
): Promise<{ app: Parameters<typeof request>[0]; close(): Promise<void> }> {
  const db = await createTestDatabase<MintDatabase>();
  const service = await startTestService({
    createService,
    configSchema,
    env: serviceEnv(env.chain, {
      SEPOLIA_RPC_URL: rpcUrl,
      RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
      SEPOLIA_MINT_CONTROLLER: env.controllerAddress,
      TREASURY_ADDRESS: env.treasury,
    }),
    overrides: { database: db },
    handedIn: [db],
  });
  await upsertListing(service.context.db, {
    network: 'sepolia',
    parentName: 'rpc.eth',
    parentNode: namehash('rpc.eth'),
    settings: {
      ...listingInputSchema.parse({ basePriceWei: '1' }),
      paymentReceiver: accountAt(env.chain, 2).address,
    },
    listedBy: null,
    source: 'file',
  });
  return {
    app: service.app,
    close: service.close,
  };
}

const query = () => ({
  parentName: 'rpc.eth',
  label: 'abc',
  minterAddress: accountAt(env.chain, 5).address,
  isTestnet: true,
});

async function expectUpstreamInTime(app: Parameters<typeof request>[0]): Promise<void> {
  const started = Date.now();
  const estimate = await request(app).get('/api/v1/mint/estimate').query(query());
  const mint = await request(app).post('/api/v1/mint').send(query());
  for (const res of [estimate, mint]) {
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: { message: expect.any(String) } });
  }
  expect(Date.now() - started).toBeLessThan(2 * (RPC_TIMEOUT_MS + SLACK_MS));
}

describe('the RPC node stalls or dies: estimate and mint answer 502 problem+json within RPC_TIMEOUT_MS', () => {
  it('a stalled node (accepts, never answers), then the same node answering again', async () => {
    await env.chain.ens.registerEthName('rpc', accountAt(env.chain, 1).address);
    const svc = await serviceWithRpc(proxy.url);
    try {
      await request(svc.app).get('/api/v1/mint/estimate').query(query()).expect(200);
      proxy.setMode('stall');
      await expectUpstreamInTime(svc.app);
      proxy.setMode('forward');
      const again = await request(svc.app).get('/api/v1/mint/estimate').query(query()).expect(200);
      expect(again.body.canMint).toBeDefined();
    } finally {
      proxy.setMode('forward');
      await svc.close();
    }
  });

  it('a killed node (SIGKILL by PID)', async () => {
    const node = await startAnvil();
    process.kill(node.pid, 'SIGKILL');
    await node.stop();
    const svc = await serviceWithRpc(node.rpcUrl);
    try {
      await expectUpstreamInTime(svc.app);
      const ready = await request(svc.app).get('/ready').expect(503);
      expect(ready.body.checks['sepolia-controller']).toBe('sepolia-controller unreachable');
      expect(ready.text).not.toMatch(/ECONN|127\.0\.0\.1/);
    } finally {
      await svc.close();
    }
  });
});
