import request from 'supertest';
import { SERVICE_NAME } from '../src/service';
import { startOffchainService, type OffchainService } from './helpers';
import { itDocumentsItself } from '@nrp/testkit';
import { offchainProblems } from '../src/problems';

describe('offchain-svc shared endpoints', () => {
  let svc: OffchainService;

  beforeAll(async () => {
    svc = await startOffchainService();
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

  it('/ready answers 503 when the database is gone', async () => {
    const other = await startOffchainService();
    await other.db.close();
    const res = await request(other.app).get('/ready').expect(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    await other.close();
  });

  itDocumentsItself(() => svc.app, {
    securitySchemes: ['apiKey', 'ingestToken', 'session', 'signIn'],
    definedProblemCodes: Object.keys(offchainProblems),
  });
});
