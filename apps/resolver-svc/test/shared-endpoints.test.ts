import request from 'supertest';
import { startAnvil, startTestService, type AnvilNode } from '@nrp/testkit';
import { configSchema } from '../src/config';
import { createService, SERVICE_NAME } from '../src/service';
import { itDocumentsItself } from '@nrp/testkit';
import { addressRouteProblems, bulkRouteProblems, nameRouteProblems } from '../src/problems';

describe('resolver-svc shared endpoints', () => {
  let app: Awaited<ReturnType<typeof createService>>['app'];
  let close: () => Promise<void>;
  let anvil: AnvilNode;

  beforeAll(async () => {
    // /ready checks the RPC node of the default network.
    anvil = await startAnvil();
    const service = await startTestService({
      createService,
      configSchema,
      env: { DEFAULT_NETWORK: 'sepolia', SEPOLIA_RPC_URL: anvil.rpcUrl },
    });
    app = service.app;
    close = service.close;
  });
  afterAll(async () => {
    await close();
    await anvil.stop();
  });

  it('GET / names the service', async () => {
    const res = await request(app).get('/').expect(200);
    expect(res.body).toMatchObject({ service: SERVICE_NAME, docs: '/docs' });
  });

  it('GET /health, /ready, /metrics and /openapi.json answer', async () => {
    await request(app).get('/health').expect(200, { status: 'ok' });
    expect((await request(app).get('/ready').expect(200)).body).toEqual({
      status: 'ok',
      checks: { 'rpc:sepolia': 'ok' },
    });
    expect((await request(app).get('/metrics').expect(200)).text).toContain('http_request_duration_seconds');
    expect((await request(app).get('/openapi.json').expect(200)).body.info.title).toBe(SERVICE_NAME);
  });

  itDocumentsItself(() => app, {
    securitySchemes: [],
    definedProblemCodes: [...nameRouteProblems, ...addressRouteProblems, ...bulkRouteProblems].map(
      (p) => p.code,
    ),
  });
});
