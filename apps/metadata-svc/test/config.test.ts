import { loadConfig } from '@nrp/server';
import { configSchema } from '../src/config';

describe('metadata-svc configuration', () => {
  it('database: the shared variables, its own default schema', () => {
    const config = loadConfig(configSchema, { PGLITE_DATA_DIR: '/tmp/pglite', DATABASE_URL: '' });
    expect(config).toMatchObject({
      DATABASE_SCHEMA: 'metadata',
      PGLITE_DATA_DIR: '/tmp/pglite',
      DATABASE_POOL_MAX: 10,
      NONCE_SWEEP_INTERVAL_MS: 600_000,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(loadConfig(configSchema, { DATABASE_SCHEMA: 'other' }).DATABASE_SCHEMA).toBe('other');
  });

  it('refuses NODE_ENV=production without DATABASE_URL or S3_BUCKET, in one line', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production' })).toThrow(
      /^Invalid configuration: DATABASE_URL: required when NODE_ENV=production[^\n]*; S3_BUCKET: required when NODE_ENV=production[^\n]*$/,
    );
    expect(() =>
      loadConfig(configSchema, { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/app' }),
    ).toThrow(/^Invalid configuration: S3_BUCKET: required when NODE_ENV=production/);
    const production = loadConfig(configSchema, {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/app',
      S3_BUCKET: 'images',
    });
    expect(production).toMatchObject({ DATABASE_URL: 'postgres://db/app', S3_BUCKET: 'images' });
  });
});
