/**
 * The dev stack of the benches: anvil with ENS and the demo names (`prepareDevChain`, as `npm start`), then every
 * service in its own child process, as in production: each from its built bundle (`dist/apps/<service>/main.js`,
 * built first by `scripts/build-service.ts`, the `nx build` target). Storage: by default PGlite under a temporary
 * directory and process memory; with DATABASE_URL PostgreSQL (a schema of its own per run, dropped at the end), and
 * with REDIS_URL they share rate limits and caches through Redis.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  SERVICE_RUNTIME_ENV,
  stopChild,
  type AnvilNode,
  type DevStackContext,
  type EnsFixture,
} from '@nrp/testkit';
import {
  prepareDevChain,
  services,
  startDevChains,
  startL2BlockTime,
  stopDevChains,
  type ServiceModule,
} from '../scripts/dev-stack';
import { deploymentNodeOptions } from './production-env';

const HOST = '127.0.0.1';
export const DATABASE_URL = process.env.DATABASE_URL;
export const REDIS_URL = process.env.REDIS_URL;

export interface StackService {
  module: ServiceModule;
  url: string;
  child: ChildProcess;
}

export interface BenchStack {
  anvil: AnvilNode;
  ctx: DevStackContext;
  running: StackService[];
  /** The key the offchain dev stack hook issued (for offchain.eth). */
  offchainApiKey: string;
  service(key: ServiceModule['key']): StackService;
  /** SIGTERM to every service, then anvil; drops the run's schemas and data. */
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  /** Names the run's schemas and cache prefix. */
  run: string;
  /** The first service's port; the others follow. */
  basePort: number;
  /** Environment of every service (over the dev stack's). */
  env?: Record<string, string>;
  /** Environment of one service (over `env`). */
  envOf?: Partial<Record<ServiceModule['key'], Record<string, string>>>;
  /** Names to register on the chain before the services start. */
  seed?: (ens: EnsFixture, owner: string) => Promise<void>;
}

async function waitReady(url: string, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode})`);
    try {
      if ((await fetch(`${url}/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} was not ready within 120 s`);
}

/** A memory figure of a process from /proc (Linux only), in MB. */
function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Resident set size of a process (VmRSS), in MB. */
export const rssMb = (pid: number): number => procStatusMb(pid, 'VmRSS');

/** Peak resident set size of a process (VmHWM), in MB. */
export const peakRssMb = (pid: number): number => procStatusMb(pid, 'VmHWM');

/** Builds the service's production bundle (as `nx build <service>` does) and answers its path. */
function bundle(service: string): string {
  const built = spawnSync(
    process.execPath,
    ['-r', 'esbuild-register', path.join('scripts', 'build-service.ts'), service],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (built.status !== 0) throw new Error(`building ${service} failed`);
  return path.join('dist', 'apps', service, 'main.js');
}

/** PostgreSQL (a schema per service and run) and Redis (a cache prefix per run) when configured. */
function storageEnv(run: string, service: string): Record<string, string> {
  const schema = `${run}_${service.replace(/-/g, '_')}`;
  return {
    ...(DATABASE_URL ? { DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
    ...(REDIS_URL ? { REDIS_URL, CACHE_REDIS_PREFIX: `${run}:` } : {}),
  };
}

async function dropSchemas(run: string): Promise<void> {
  if (!DATABASE_URL) return;
  const admin = new Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    for (const { name } of services) {
      await admin.query(`DROP SCHEMA IF EXISTS ${run}_${name.replace(/-/g, '_')} CASCADE`);
    }
  } finally {
    await admin.end();
  }
}

export async function startBenchStack(opts: BenchStackOptions): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${opts.run}-`));
  const chains = await startDevChains();
  const anvil = chains.l1;
  const running: StackService[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(running.map(({ child }) => stopChild(child)));
    await stopDevChains(chains);
    await dropSchemas(opts.run);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const urls = Object.fromEntries(
      services.map((s, i) => [s.key, `http://${HOST}:${opts.basePort + i}`]),
    ) as DevStackContext['services'];
    const { ctx, contributions } = await prepareDevChain(chains, urls, dataDir, HOST, opts.seed);
    for (const module of services) {
      const url = urls[module.key];
      const child = spawn(process.execPath, [bundle(module.name)], {
        env: {
          ...process.env,
          ...SERVICE_RUNTIME_ENV,
          NODE_OPTIONS: deploymentNodeOptions(module.name),
          ...ctx.env,
          ...contributions.get(module)?.env,
          ...storageEnv(opts.run, module.name),
          PORT: new URL(url).port,
          LOG_LEVEL: 'error',
          ...opts.env,
          ...opts.envOf?.[module.key],
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      running.push({ module, url, child });
      await waitReady(url, child, module.name);
    }
    for (const contribution of contributions.values()) await contribution.afterStart?.();
    await startL2BlockTime(chains);
    const offchainApiKey = [...contributions.values()].find((c) => c.offchainApiKey)?.offchainApiKey;
    if (!offchainApiKey) throw new Error('the offchain dev stack hook issued no API key');
    return {
      anvil,
      ctx,
      running,
      offchainApiKey,
      service: (key) => {
        const found = running.find((s) => s.module.key === key);
        if (!found) throw new Error(`no ${key} service`);
        return found;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
