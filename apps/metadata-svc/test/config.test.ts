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

describe('avatar fetching configuration', () => {
  it('defaults to public gateways, no allowed origins, 10 s, 10 MiB, 60 s of reuse', () => {
    expect(loadConfig(configSchema, {})).toMatchObject({
      IPFS_GATEWAY_URL: 'https://ipfs.io',
      ARWEAVE_GATEWAY_URL: 'https://arweave.net',
      IMAGE_FETCH_ALLOWED_ORIGINS: [],
      IMAGE_FETCH_TIMEOUT_MS: 10_000,
      IMAGE_FETCH_MAX_BYTES: 4 * 1024 * 1024,
      AVATAR_CACHE_TTL_MS: 60_000,
    });
  });

  it('takes a comma-separated list of exact origins and refuses a value that is not one', () => {
    expect(
      loadConfig(configSchema, {
        IMAGE_FETCH_ALLOWED_ORIGINS: 'http://127.0.0.1:8080, http://localhost:9000',
      }).IMAGE_FETCH_ALLOWED_ORIGINS,
    ).toEqual(['http://127.0.0.1:8080', 'http://localhost:9000']);
    for (const value of ['not an origin', 'http://127.0.0.1:8080/images', 'http://user@127.0.0.1:8080']) {
      expect(() => loadConfig(configSchema, { IMAGE_FETCH_ALLOWED_ORIGINS: value })).toThrow(
        /IMAGE_FETCH_ALLOWED_ORIGINS/,
      );
    }
    expect(() => loadConfig(configSchema, { IPFS_GATEWAY_URL: 'ipfs.io' })).toThrow(/IPFS_GATEWAY_URL/);
  });
});
