import { z } from 'zod';
import {
  baseConfigSchema,
  commaSeparated,
  ConfigError,
  loadConfig,
  nonNegativeInt,
  parseTrustProxy,
  positiveInt,
  hostList,
  originList,
  redactConfig,
} from '../src';

describe('loadConfig', () => {
  const schema = baseConfigSchema(3001).extend({ SIGNER_KEY: z.string().regex(/^0x[0-9a-f]{64}$/) });

  it('applies defaults', () => {
    const config = loadConfig(schema, { SIGNER_KEY: `0x${'1'.repeat(64)}` });
    expect(config).toMatchObject({ PORT: 3001, HOST: '0.0.0.0', LOG_LEVEL: 'info', CORS_ORIGINS: ['*'] });
  });

  it('stops with one line naming the bad variable', () => {
    expect(() => loadConfig(schema, { PORT: 'eighty', SIGNER_KEY: `0x${'1'.repeat(64)}` })).toThrow(
      ConfigError,
    );
    try {
      loadConfig(schema, { PORT: 'eighty' });
    } catch (err) {
      const message = (err as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toMatch(/^Invalid configuration: PORT: .*got "eighty".*; SIGNER_KEY: .*it is not set/);
    }
  });

  it('never quotes secrets, and quotes URLs without their credentials', () => {
    const secretSchema = baseConfigSchema(3001).extend({
      SIGNER_KEY: z.string().regex(/^0x[0-9a-f]{64}$/),
      CACHE_URL: z.url().refine((url) => url.startsWith('rediss:'), 'must use TLS'),
    });
    expect(() =>
      loadConfig(secretSchema, {
        SIGNER_KEY: '0xdeadbeef-secret',
        CACHE_URL: 'redis://user:hunter2@cache:6379',
      }),
    ).toThrow(
      /^Invalid configuration: SIGNER_KEY: .*\(the value is not shown\); CACHE_URL: must use TLS \(got "redis:\/\/\*\*\*@cache:6379"\)$/,
    );
  });

  it('parses TRUST_PROXY as express expects', () => {
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8')).toBe('10.0.0.0/8');
  });
});

describe('shared variable helpers', () => {
  const schema = z.object({
    NAME: z.string().optional(),
    URL: z.url().optional(),
    LIST: commaSeparated.default(['*']),
    COUNT: positiveInt.default(1),
    DELAY: nonNegativeInt.default(5),
  });

  it('lists are trimmed; numbers are coerced', () => {
    expect(loadConfig(schema, { NAME: 'n', LIST: ' a, b ,,c ', COUNT: '3', DELAY: '0' })).toEqual({
      NAME: 'n',
      LIST: ['a', 'b', 'c'],
      COUNT: 3,
      DELAY: 0,
    });
    expect(loadConfig(schema, {})).toMatchObject({ LIST: ['*'], COUNT: 1, DELAY: 5 });
  });

  it('an empty variable means the same as an unset one: optional ones are unset, the others keep their default', () => {
    expect(loadConfig(schema, { NAME: '', URL: '', LIST: '', COUNT: '', DELAY: '' })).toEqual({
      LIST: ['*'],
      COUNT: 1,
      DELAY: 5,
    });
    const base = loadConfig(baseConfigSchema(3001), {
      CORS_ORIGINS: '',
      TRUST_PROXY: '',
      REDIS_URL: '',
      PORT: '',
    });
    expect(base).toMatchObject({ CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', PORT: 3001 });
    expect(base.REDIS_URL).toBeUndefined();
  });

  it('refuses what does not fit', () => {
    expect(schema.safeParse({ URL: 'not a url' }).success).toBe(false);
    expect(schema.safeParse({ COUNT: '0' }).success).toBe(false);
    expect(schema.safeParse({ DELAY: '-1' }).success).toBe(false);
    expect(schema.safeParse({ DELAY: '1.5' }).success).toBe(false);
  });
});

describe('redactConfig', () => {
  it('hides secrets and cuts URLs to their host, keeping every other value as parsed', () => {
    expect(
      redactConfig({
        PORT: 3001,
        SIGNER_PRIVATE_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        DATABASE_URL: 'postgres://app:hunter2@db.internal:5432/records',
        MAINNET_RPC_URL: 'https://eth-mainnet.example.com/v2/abcdef123456',
        OFFCHAIN_URL: 'http://offchain-svc',
        CORS_ORIGINS: ['https://app.example.com'],
        S3_BUCKET: 'images',
        REDIS_URL: undefined,
      }),
    ).toEqual({
      PORT: 3001,
      SIGNER_PRIVATE_KEY: '[redacted]',
      S3_SECRET_ACCESS_KEY: '[redacted]',
      DATABASE_URL: 'postgres://db.internal:5432/***',
      MAINNET_RPC_URL: 'https://eth-mainnet.example.com/***',
      OFFCHAIN_URL: 'http://offchain-svc',
      CORS_ORIGINS: ['https://app.example.com'],
      S3_BUCKET: 'images',
      REDIS_URL: undefined,
    });
  });
});

describe('originList and hostList', () => {
  it('take * or origins, and host[:port] entries', () => {
    expect(originList.parse('https://app.example.com, http://localhost:3000')).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ]);
    expect(originList.parse('*')).toEqual(['*']);
    expect(hostList.parse('app.example.com,localhost:3000')).toEqual(['app.example.com', 'localhost:3000']);
  });

  it.each(['https://app.example.com/', 'app.example.com', 'REQUIRED app origins', 'ftp://files.example.com'])(
    'refuse the origin %j',
    (value) => {
      expect(originList.safeParse(value).success).toBe(false);
    },
  );

  it.each(['https://app.example.com', 'REQUIRED sign-in domains', 'app.example.com/path'])(
    'refuse the host %j',
    (value) => {
      expect(hostList.safeParse(value).success).toBe(false);
    },
  );
});
