import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { configSchema } from '../src/config';
import { createService, SERVICE_NAME } from '../src/service';
import { authProblems } from '@nrp/auth';
import { itDocumentsItself, startTestService } from '@nrp/testkit';
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

  itDocumentsItself(() => app, {
    securitySchemes: ['signIn'],
    definedProblemCodes: [...Object.keys(problems), ...Object.keys(authProblems)],
  });
});
