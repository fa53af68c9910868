import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { faultToolAvailable } from './fault-tools';
import { freePort } from './ports';

/** The machine's Redis server (Debian's redis-server); REDIS_SERVER_BIN points elsewhere. */
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** A Redis server of the test's own, to kill and restart (see `startRedisServer`). */
export interface TestRedisServer {
  /** `redis://127.0.0.1:{port}`. */
  url: string;
  port: number;
  /** SIGKILL (a crash): connections drop, new ones are refused. Its data is gone (it keeps none on disk). */
  kill(): Promise<void>;
  /** Starts an empty server again on the same port; resolves when it accepts connections. */
  restart(): Promise<void>;
  /** Kills the server if it runs. */
  stop(): Promise<void>;
}

/** Whether `startRedisServer` can run here (see `faultToolAvailable`). */
export function redisServerAvailable(): boolean {
  return faultToolAvailable(REDIS_SERVER_BIN, 'apt-get install redis-server, or set REDIS_SERVER_BIN');
}

/** A `redis-server` on a free port of 127.0.0.1, in memory only (no RDB, no AOF). */
export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      REDIS_SERVER_BIN,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      // Read for as long as the server runs, so a full pipe never blocks it.
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, restart: start, stop: kill };
}
