import request from 'supertest';
import { startAnvil, startTestService, type AnvilNode } from '@nrp/testkit';
import { configSchema } from '../src/config';
import { createService, SERVICE_NAME } from '../src/service';
import { documentedProblemCodes, openApiFindings } from '@nrp/testkit';
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

  it('an unknown route is a problem+json 404', async () => {
    const res = await request(app).get('/no/such/route').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('/openapi.json validates, lints clean under Redocly recommended, and its generated types compile', async () => {
    const doc = (await request(app).get('/openapi.json').expect(200)).body;
    expect(await openApiFindings(doc)).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual([]);
  });

  it('/docs/errors lists every problem a route answers, and every problem the service defines is answered', async () => {
    const doc = (await request(app).get('/openapi.json').expect(200)).body;
    const catalogue = (await request(app).get('/docs/errors').expect(200)).body.problems.map(
      (p: { code: string }) => p.code,
    );
    const answered = documentedProblemCodes(doc);
    expect([...answered].filter((code) => !catalogue.includes(code))).toEqual([]);
    expect(
      [...nameRouteProblems, ...addressRouteProblems, ...bulkRouteProblems]
        .map((p) => p.code)
        .filter((code) => !answered.has(code)),
    ).toEqual([]);
  });
});
