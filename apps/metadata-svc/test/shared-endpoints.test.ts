import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { configSchema } from '../src/config';
import { createService, SERVICE_NAME } from '../src/service';
import { authProblems } from '@nrp/auth';
import { documentedProblemCodes, openApiFindings, startTestService } from '@nrp/testkit';
import { problems } from '../src/problems';

describe('metadata-svc shared endpoints', () => {
  let app: Awaited<ReturnType<typeof createService>>['app'];
  let close: () => Promise<void>;

  beforeAll(async () => {
    const service = await startTestService({
      createService,
      configSchema,
      env: {
        BLOB_DIR: mkdtempSync(join(tmpdir(), 'metadata-shared-')),
        PENDING_CHECK_INTERVAL_MS: '0',
        ORPHAN_SWEEP_INTERVAL_MS: '0',
      },
    });
    app = service.app;
    close = service.close;
  });
  afterAll(() => close());

  it('GET / names the service', async () => {
    const res = await request(app).get('/').expect(200);
    expect(res.body).toEqual({ service: SERVICE_NAME, version: '1.0', docs: '/docs' });
  });

  it('GET /health, /ready, /metrics and /openapi.json answer', async () => {
    await request(app).get('/health').expect(200, { status: 'ok' });
    expect((await request(app).get('/ready').expect(200)).body.status).toBe('ok');
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
    expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual(['signIn']);
  });

  it('/docs/errors lists every problem a route answers, and every problem the service defines is answered', async () => {
    const doc = (await request(app).get('/openapi.json').expect(200)).body;
    const catalogue = (await request(app).get('/docs/errors').expect(200)).body.problems.map(
      (p: { code: string }) => p.code,
    );
    const answered = documentedProblemCodes(doc);
    expect([...answered].filter((code) => !catalogue.includes(code))).toEqual([]);
    expect(
      [...Object.keys(problems), ...Object.keys(authProblems)].filter((code) => !answered.has(code)),
    ).toEqual([]);
  });
});
