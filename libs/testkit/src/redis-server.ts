import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './ports';

export interface TestRedisServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The machine's `redis-server` on a free port, in memory only (no RDB, no AOF): a Redis the test owns alone. */
export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (child.pid === undefined) throw new Error('redis-server: failed to spawn');
  const pid = child.pid;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.on('exit', () => child.kill('SIGKILL'));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await gone;
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${stderr.trim()}`);
    if (await listening(port)) return { url: `redis://127.0.0.1:${port}`, pid, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server did not listen on ${port}: ${stderr.trim()}`);
}
