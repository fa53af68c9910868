import request from 'supertest';
import { ConfigError, createLogger, loadConfig } from '@nrp/server';
import { configSchema } from '../src/config';
import { createService, SERVICE_NAME } from '../src/service';
import { authProblems } from '@nrp/auth';
import { itDocumentsItself, startTestService } from '@nrp/testkit';
import { mintProblems } from '../src/problems';

const env = {
  LOG_LEVEL: 'silent',
  SIGNER_PRIVATE_KEY: '0x' + '22'.repeat(32),
  // Closed ports: these tests never reach a node.
  MAINNET_RPC_URL: 'http://127.0.0.1:9',
  SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
};

describe('mint-svc shared endpoints', () => {
  let app: Awaited<ReturnType<typeof createService>>['app'];
  let close: () => Promise<void>;

  beforeAll(async () => {
    const service = await startTestService({ createService, configSchema, env });
    app = service.app;
    close = service.close;
  });
  afterAll(() => close());

  it('GET / names the service', async () => {
    const res = await request(app).get('/').expect(200);
    expect(res.body).toMatchObject({ service: SERVICE_NAME, docs: '/docs' });
  });

  it('GET /health, /ready, /metrics and /openapi.json answer', async () => {
    await request(app).get('/health').expect(200, { status: 'ok' });
    const ready = (await request(app).get('/ready').expect(200)).body;
    expect(ready.status).toBe('ok');
    expect(Object.keys(ready.checks).sort()).toEqual(
      process.env.REDIS_URL ? ['database', 'redis'] : ['database'],
    );
    expect((await request(app).get('/metrics').expect(200)).text).toContain('http_request_duration_seconds');
    const openapi = (await request(app).get('/openapi.json').expect(200)).body;
    expect(openapi.info.title).toBe(SERVICE_NAME);
    expect(Object.keys(openapi.paths).sort()).toEqual([
      '/api/v1/auth/nonce',
      '/api/v1/listings/{network}/{parentName}',
      '/api/v1/mint',
      '/api/v1/mint/estimate',
      '/api/v1/minters/verify',
      '/api/v1/names',
    ]);
    const params = openapi.paths['/api/v1/mint/estimate'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(['parentName', 'label', 'minterAddress', 'network', 'isTestnet', 'expiryInYears']);
  });

  itDocumentsItself(() => app, {
    securitySchemes: ['signIn'],
    definedProblemCodes: [...Object.keys(mintProblems), ...Object.keys(authProblems)],
  });
});

describe('mint-svc configuration', () => {
  const logger = createLogger('t', 'silent');

  it('refuses to start without SIGNER_PRIVATE_KEY', async () => {
    const config = loadConfig(configSchema, { ...env, SIGNER_PRIVATE_KEY: '' });
    await expect(createService(config, logger)).rejects.toThrow(ConfigError);
    await expect(createService(config, logger)).rejects.toThrow(/SIGNER_PRIVATE_KEY: required/);
  });

  it('refuses a malformed key without echoing it', async () => {
    const secret = '0x' + 'ab'.repeat(31) + 'zz';
    const config = loadConfig(configSchema, { ...env, SIGNER_PRIVATE_KEY: secret });
    const err = await createService(config, logger).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).not.toContain('abab');
    const zero = loadConfig(configSchema, { ...env, SIGNER_PRIVATE_KEY: '0x' + '00'.repeat(32) });
    await expect(createService(zero, logger)).rejects.toThrow(/not a valid secp256k1 private key/);
  });

  it('bad values name their variable', () => {
    expect(() => loadConfig(configSchema, { ...env, STANDARD_FEE_WEI: '0.5' })).toThrow(/STANDARD_FEE_WEI/);
    expect(() => loadConfig(configSchema, { ...env, SEPOLIA_MINT_CONTROLLER: '0x12' })).toThrow(
      /SEPOLIA_MINT_CONTROLLER/,
    );
    expect(() => loadConfig(configSchema, { ...env, NODE_ENV: 'production' })).toThrow(
      /^Invalid configuration: DATABASE_URL: required when NODE_ENV=production/,
    );
  });

  it('rate limits POST /api/v1/mint and the nonce route per IP with 429 and Retry-After', async () => {
    // In-process counters (Redis counters would outlive this run and make the count depend on earlier runs).
    const { REDIS_URL: _redis, ...withoutRedis } = env as typeof env & { REDIS_URL?: string };
    const config = loadConfig(configSchema, {
      ...withoutRedis,
      MINT_RATE_LIMIT_PER_MINUTE: '2',
      NONCE_RATE_LIMIT_PER_MINUTE: '1',
    });
    const instance = await createService(config, logger);
    try {
      const body = {
        parentName: 'mint.eth',
        label: 'abc',
        minterAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      };
      // No controller on mainnet: 503 twice, then the limiter answers before the route.
      await request(instance.app).post('/api/v1/mint').send(body).expect(503);
      await request(instance.app).post('/api/v1/mint').send(body).expect(503);
      const limited = await request(instance.app).post('/api/v1/mint').send(body).expect(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      const nonce = { address: body.minterAddress };
      await request(instance.app).post('/api/v1/auth/nonce').send(nonce).expect(200);
      await request(instance.app).post('/api/v1/auth/nonce').send(nonce).expect(429);
    } finally {
      for (const step of instance.onShutdown) await step();
    }
  });

  it('a bad LISTINGS_FILE stops the start with one line naming it', async () => {
    const config = loadConfig(configSchema, { ...env, LISTINGS_FILE: '/no/such/listings.json' });
    await expect(createService(config, logger)).rejects.toThrow(/LISTINGS_FILE: cannot read/);
  });
});
