import request from 'supertest';
import { SERVICE_NAME } from '../src/service';
import { startTestService, type TestService } from './helpers';
import { documentedProblemCodes, openApiFindings } from '@nrp/testkit';
import { offchainProblems } from '../src/problems';

describe('offchain-svc shared endpoints', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  it('GET / names the service', async () => {
    const res = await request(svc.app).get('/').expect(200);
    expect(res.body).toMatchObject({ service: SERVICE_NAME, docs: '/docs' });
  });

  it('GET /health, /ready (database checked), /metrics and /openapi.json answer', async () => {
    await request(svc.app).get('/health').expect(200, { status: 'ok' });
    const ready = (await request(svc.app).get('/ready').expect(200)).body;
    expect(ready).toEqual({ status: 'ok', checks: { database: 'ok' } });
    expect((await request(svc.app).get('/metrics').expect(200)).text).toContain(
      'http_request_duration_seconds',
    );
    const openApi = (await request(svc.app).get('/openapi.json').expect(200)).body;
    expect(openApi.info.title).toBe(SERVICE_NAME);
    expect(Object.keys(openApi.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/subnames',
        '/api/v1/subnames/search',
        '/api/v1/subnames/{fullSubname}',
        '/api/v1/subnames/namehash/{namehash}',
        '/api/v1/gateway',
      ]),
    );
  });

  it('lists its problems in the error catalogue', async () => {
    const res = await request(svc.app).get('/docs/errors').expect(200);
    for (const code of [
      'SUBNAME_NOT_FOUND',
      'PARENT_NOT_ALLOWED',
      'INVALID_CCIP_REQUEST',
      'UNSUPPORTED_RESOLVER_CALL',
    ]) {
      expect(res.text).toContain(code);
    }
  });

  it('an unknown route is a problem+json 404', async () => {
    const res = await request(svc.app).get('/no/such/route').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('/ready answers 503 when the database is gone', async () => {
    const other = await startTestService();
    await other.db.close();
    const res = await request(other.app).get('/ready').expect(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    await other.close();
  });

  it('/openapi.json validates, lints clean under Redocly recommended, and its generated types compile', async () => {
    const doc = (await request(svc.app).get('/openapi.json').expect(200)).body;
    expect(await openApiFindings(doc)).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual(['apiKey']);
  });

  it('/docs/errors lists every problem a route answers, and every problem the service defines is answered', async () => {
    const doc = (await request(svc.app).get('/openapi.json').expect(200)).body;
    const catalogue = (await request(svc.app).get('/docs/errors').expect(200)).body.problems.map(
      (p: { code: string }) => p.code,
    );
    const answered = documentedProblemCodes(doc);
    expect([...answered].filter((code) => !catalogue.includes(code))).toEqual([]);
    expect(Object.keys(offchainProblems).filter((code) => !answered.has(code))).toEqual([]);
  });
});
