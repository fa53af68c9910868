import { ConfigError, loadConfig } from '@nrp/server';
import { configSchema } from '../src/config';

describe('offchain-svc configuration', () => {
  it('defaults: PGlite in memory, no gateway key, 300 s answers', () => {
    const config = loadConfig(configSchema, {});
    expect(config).toMatchObject({
      PORT: 3003,
      GATEWAY_TTL_SECONDS: 300,
      GATEWAY_RATE_LIMIT_PER_MINUTE: 60_000,
      DATABASE_POOL_MAX: 10,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.GATEWAY_SIGNER_KEY).toBeUndefined();
  });

  it('treats empty variables as unset and normalises the bootstrap parents', () => {
    const config = loadConfig(configSchema, {
      DATABASE_URL: '',
      GATEWAY_SIGNER_KEY: '',
      BOOTSTRAP_API_KEY_HASH: 'AB'.repeat(32),
      BOOTSTRAP_API_KEY_PARENTS: ' Offchain.ETH, demo.eth ,',
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.BOOTSTRAP_API_KEY_PARENTS).toEqual(['offchain.eth', 'demo.eth']);
  });

  it.each([
    ['GATEWAY_SIGNER_KEY', '0x1234'],
    ['GATEWAY_TTL_SECONDS', '0'],
    ['GATEWAY_RATE_LIMIT_PER_MINUTE', '0'],
    ['BOOTSTRAP_API_KEY_HASH', 'not-a-hash'],
    ['BOOTSTRAP_API_KEY_PARENTS', 'demo..eth'],
    ['DATABASE_SCHEMA', 'Bad-Schema'],
    ['DATABASE_URL', 'not a url'],
  ])('a bad %s is one clear line naming it', (variable, value) => {
    expect(() => loadConfig(configSchema, { [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig(configSchema, { [variable]: value })).toThrow(
      new RegExp(`^Invalid configuration: ${variable}:`),
    );
  });

  it('L2 gateway: a 60 s block age limit and a 2 s answer cache by default, the cache below the answer TTL', () => {
    expect(loadConfig(configSchema, {})).toMatchObject({
      L2_MAX_BLOCK_AGE_SECONDS: 60,
      L2_ANSWER_CACHE_MS: 2000,
    });
    expect(() =>
      loadConfig(configSchema, {
        GATEWAY_TTL_SECONDS: '2',
        ANSWER_CACHE_SECONDS: '1',
        L2_ANSWER_CACHE_MS: '2000',
      }),
    ).toThrow(/^Invalid configuration: L2_ANSWER_CACHE_MS: must be less than GATEWAY_TTL_SECONDS/);
    expect(() => loadConfig(configSchema, { L2_MAX_BLOCK_AGE_SECONDS: '0' })).toThrow(
      /^Invalid configuration: L2_MAX_BLOCK_AGE_SECONDS:/,
    );
    expect(
      loadConfig(configSchema, {
        BASE_SEPOLIA_L2_REGISTRIES: ' 0x5FbDB2315678afecb367f032d93F642f64180aa3 ,',
      }),
    ).toMatchObject({ BASE_SEPOLIA_L2_REGISTRIES: ['0x5FbDB2315678afecb367f032d93F642f64180aa3'] });
  });

  it('refuses NODE_ENV=production without DATABASE_URL (PGlite is for development)', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production', PGLITE_DATA_DIR: '/data' })).toThrow(
      /^Invalid configuration: DATABASE_URL: required when NODE_ENV=production/,
    );
    expect(
      loadConfig(configSchema, { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/offchain' })
        .DATABASE_URL,
    ).toBe('postgres://db/offchain');
  });
});
