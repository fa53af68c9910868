import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { hashApiKey } from '@nrp/auth';
import { createLogger, loadConfig } from '@nrp/server';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import { configSchema } from '../src/config';
import { verifyApiKey } from '../src/keys/api-keys';
import { KeysUsageError, runKeysCommand } from '../src/cli/keys-command';
import type { OffchainDatabase } from '../src/data/schema';
import { createService } from '../src/service';
import { startOffchainService, type OffchainService } from './helpers';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

describe('API key operator command (in process)', () => {
  let svc: OffchainService;
  const lines: string[] = [];
  const keys = (argv: string[]) => runKeysCommand(svc.db, argv, (line) => lines.push(line));

  beforeAll(async () => {
    svc = await startOffchainService();
  });
  afterAll(() => svc.close());
  beforeEach(() => {
    lines.length = 0;
  });

  it('create prints the key once; only its SHA-256 is stored; the key works for its parents only', async () => {
    expect(
      await keys(['create', '--parent', 'Demo.eth', '--parent', 'offchain.eth,demo.eth', '--note', 'ci']),
    ).toBe(0);
    const key = lines.find((l) => l.startsWith('key:'))?.split(/\s+/)[1] ?? '';
    const id = lines.find((l) => l.startsWith('id:'))?.split(/\s+/)[1] ?? '';
    expect(key).toMatch(/^offchain_[A-Za-z0-9_-]{43}$/);
    const rows = await svc.db.db.selectFrom('offchain_api_keys').selectAll().where('id', '=', id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key_hash).toBe(hashApiKey(key));
    expect(rows[0]?.parents).toEqual(['demo.eth', 'offchain.eth']);
    expect(JSON.stringify(rows)).not.toContain(key);

    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'offchain.eth', label: 'cli' })
      .expect(201);
    const other = await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'other.eth', label: 'cli' });
    expect(other.status).toBe(403);

    lines.length = 0;
    expect(await keys(['list'])).toBe(0);
    const listed = lines.find((l) => l.startsWith(id)) ?? '';
    expect(listed).toContain('active');
    expect(listed).toContain('demo.eth,offchain.eth');
    expect(lines.join('\n')).not.toContain(key);

    lines.length = 0;
    expect(await keys(['revoke', id])).toBe(0);
    expect(await verifyApiKey(svc.db, key)).toBeUndefined();
    const revoked = await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'offchain.eth', label: 'cli2' });
    expect(revoked.status).toBe(401);
    lines.length = 0;
    await keys(['list']);
    expect(lines.find((l) => l.startsWith(id))).toContain('revoked');
    expect(await keys(['revoke', id])).toBe(1);
  });

  it.each([
    [['create'], /--parent/],
    [['create', '--parent', 'bad..name'], /--parent bad\.\.name/],
    [['create', '--parent', 'demo.eth', '--bogus'], /bogus/],
    [['revoke'], /exactly one key id/],
    [['revoke', 'not-a-uuid'], /exactly one key id/],
    [['rotate'], /unknown command/],
    [[], /missing command/],
  ])('rejects %j', async (argv, message) => {
    await expect(keys(argv)).rejects.toThrow(message);
    await expect(keys(argv)).rejects.toBeInstanceOf(KeysUsageError);
  });
});

describe('API key operator command (npm script entry point, same database config as the service)', () => {
  let dataDir: string | undefined;
  let pgDb: TestDatabase<OffchainDatabase> | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (process.env.DATABASE_URL) {
      pgDb = await createTestDatabase<OffchainDatabase>();
      env = { DATABASE_URL: pgDb.url ?? '' };
    } else {
      dataDir = await mkdtemp(path.join(tmpdir(), 'offchain-keys-'));
      env = { PGLITE_DATA_DIR: dataDir };
    }
  });
  afterAll(async () => {
    await pgDb?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const cli = async (...argv: string[]) => {
    const { stdout } = await run(
      'node',
      ['-r', 'esbuild-register', 'apps/offchain-svc/src/cli/keys.ts', ...argv],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
      },
    );
    return stdout;
  };
  /** The service on the same database, for one request (PGlite data dirs are single-process). */
  const createWith = async (key: string, label: string) => {
    const config = loadConfig(configSchema, { LOG_LEVEL: 'silent', ...env });
    const instance = await createService(config, createLogger('t', 'silent'));
    try {
      return (
        await request(instance.app)
          .post('/api/v1/subnames')
          .set('x-auth-token', key)
          .send({ parentName: 'demo.eth', label })
      ).status;
    } finally {
      for (const step of instance.onShutdown) await step();
    }
  };

  it('create → the service accepts the key; revoke → it refuses it', async () => {
    const created = await cli('create', '--parent', 'demo.eth');
    const key = /key:\s+(\S+)/.exec(created)?.[1] ?? '';
    const id = /id:\s+(\S+)/.exec(created)?.[1] ?? '';
    expect(key).toMatch(/^offchain_/);
    expect(await cli('list')).toContain(`${id}  active`);
    expect(await createWith(key, 'one')).toBe(201);
    expect(await cli('revoke', id)).toContain(`revoked ${id}`);
    expect(await createWith(key, 'two')).toBe(401);
  });

  it('exits 2 with the usage on a bad command line', async () => {
    await expect(cli('create')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage:') });
  });

  it('with NODE_ENV=production and no DATABASE_URL: exit 1 and one config error line', async () => {
    const failed = run('node', ['-r', 'esbuild-register', 'apps/offchain-svc/src/cli/keys.ts', 'list'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PGLITE_DATA_DIR: dataDir ?? '/tmp/x' },
    });
    const err: unknown = await failed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 1 });
    const stderr = typeof err === 'object' && err !== null && 'stderr' in err ? String(err.stderr) : '';
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Invalid configuration: DATABASE_URL: required when NODE_ENV=production/),
    ]);
  });
});
