import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { exitOf, stopChild } from './child-process';
import { freePort } from './ports';

export interface ServiceProcess {
  url: string;
  port: number;
  pid: number;
  /** The last few KB the process wrote to stderr (for failure messages). */
  stderr(): string;
  /** SIGKILL: the process gets no chance to finish anything; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (its graceful shutdown), SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/**
 * What the service images set in their environment besides NODE_ENV and PORT (docker/Dockerfile; a test keeps the
 * two equal), for every process that runs a service as production does. Two malloc arenas instead of glibc's eight
 * per core: a service's threads (libuv's pool, sharp's) otherwise each keep an arena of freed memory, and its RSS
 * after a burst comes back less (bench:abuse on PostgreSQL, one run each on 26 November: metadata-svc ended 28% over
 * its RSS at start with glibc's default, 14% with two arenas; offchain-svc 16% and 10%).
 */
export const SERVICE_RUNTIME_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

const REPO_ROOT = path.resolve(__dirname, '../../..');
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Runs a service from its TypeScript entry (`apps/<svc>/src/main.ts`, through esbuild-register) as its own process
 * on a free port, with only `env` (plus PATH and HOME: nothing leaks in from the test's environment such as
 * DATABASE_URL), and waits until `GET /health` answers 200.
 */
export async function startServiceProcess(
  entry: string,
  env: Record<string, string>,
  /** `cwd`: the checkout whose node_modules run it (a release's code beside this one); default this checkout. */
  opts: { port?: number; readyTimeoutMs?: number; cwd?: string } = {},
): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const child = spawn(process.execPath, ['-r', 'esbuild-register', entry], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...SERVICE_RUNTIME_ENV,
      LOG_LEVEL: 'warn',
      // As in-process tests: every JSON answer is parsed through its schema (the kit's checkResponses).
      NODE_ENV: 'test',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${entry}: failed to spawn`);
  const pid = child.pid;
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });

  const url = `http://127.0.0.1:${port}`;
  const kill = async (): Promise<void> => {
    const gone = exitOf(child);
    child.kill('SIGKILL');
    await gone;
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${entry} exited (${String(child.exitCode ?? child.signalCode)}): ${stderr.trim()}`);
    }
    const status = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) {
      await kill();
      throw new Error(`${entry} did not answer /health within the timeout: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    port,
    pid,
    stderr: () => stderr,
    kill,
    stop: () => stopChild(child),
  };
}
