import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import { ConfigError, loadConfig } from '@nrp/server';
import {
  databaseEnvSchema,
  databaseFromEnv,
  databaseSchemaEnv,
  requireDatabaseUrlInProduction,
} from '../src';

describe('databaseEnvSchema', () => {
  it('unset and empty variables mean PGlite in memory, pool of 10', () => {
    const env = loadConfig(databaseEnvSchema, { DATABASE_URL: '', PGLITE_DATA_DIR: '', DATABASE_SCHEMA: '' });
    expect(env).toEqual({ DATABASE_POOL_MAX: 10 });
  });

  it('rejects a URL that is not postgres:// and a schema name that needs quoting', () => {
    expect(() => loadConfig(databaseEnvSchema, { DATABASE_URL: 'mysql://h/db' })).toThrow(
      /DATABASE_URL: must be a postgres:\/\/ URL/,
    );
    expect(() => loadConfig(databaseEnvSchema, { DATABASE_SCHEMA: 'Bad-Schema' })).toThrow(/DATABASE_SCHEMA/);
    expect(loadConfig(databaseEnvSchema, { DATABASE_URL: 'postgresql://u@h:5432/db' }).DATABASE_URL).toBe(
      'postgresql://u@h:5432/db',
    );
  });

  it('NODE_ENV=production without DATABASE_URL is one config error line', () => {
    let error: unknown;
    try {
      loadConfig(databaseEnvSchema, { NODE_ENV: 'production', PGLITE_DATA_DIR: '/data' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = error instanceof Error ? error.message : '';
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^Invalid configuration: DATABASE_URL: required when NODE_ENV=production/);
    expect(
      loadConfig(databaseEnvSchema, { NODE_ENV: 'production', DATABASE_URL: 'postgres://h/db' }).DATABASE_URL,
    ).toBe('postgres://h/db');
    expect(loadConfig(databaseEnvSchema, { NODE_ENV: 'development' }).DATABASE_URL).toBeUndefined();
  });

  it('a service config extends the shape with its own default schema and keeps the production rule', () => {
    const schema = z
      .object({ ...databaseEnvSchema.shape, DATABASE_SCHEMA: databaseSchemaEnv('svc') })
      .superRefine(requireDatabaseUrlInProduction);
    expect(loadConfig(schema, {}).DATABASE_SCHEMA).toBe('svc');
    expect(loadConfig(schema, { DATABASE_SCHEMA: '' }).DATABASE_SCHEMA).toBe('svc');
    expect(loadConfig(schema, { DATABASE_SCHEMA: 'other' }).DATABASE_SCHEMA).toBe('other');
    expect(() => loadConfig(schema, { NODE_ENV: 'production' })).toThrow(/DATABASE_URL: required/);
  });
});

describe('databaseFromEnv', () => {
  it('PGLITE_DATA_DIR persists the tables across reopenings, in DATABASE_SCHEMA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'db-env-'));
    try {
      const env = databaseEnvSchema.parse({
        PGLITE_DATA_DIR: join(dir, 'nested', 'pglite'),
        DATABASE_SCHEMA: 'app',
      });
      const first = databaseFromEnv(env);
      expect(first.kind).toBe('pglite');
      await sql`create table kept (v int)`.execute(first.db);
      await sql`insert into kept values (7)`.execute(first.db);
      await first.close();
      const second = databaseFromEnv(env);
      try {
        const rows = await sql<{ v: number }>`select v from app.kept`.execute(second.db);
        expect(rows.rows).toEqual([{ v: 7 }]);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  (process.env.DATABASE_URL ? it : it.skip)('DATABASE_URL: PostgreSQL in DATABASE_SCHEMA', async () => {
    const schema = `env_${randomBytes(4).toString('hex')}`;
    const handle = databaseFromEnv(
      databaseEnvSchema.parse({ DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema }),
    );
    try {
      expect(handle.kind).toBe('postgres');
      const rows = await sql<{ s: string }>`select current_schema() as s`.execute(handle.db);
      expect(rows.rows[0]?.s).toBe(schema);
    } finally {
      await sql.raw(`drop schema if exists ${schema} cascade`).execute(handle.db);
      await handle.close();
    }
  });
});
