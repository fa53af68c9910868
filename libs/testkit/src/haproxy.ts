import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports';

export interface TestHaproxy {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Debian's `haproxy` in front of `backends` (`http://127.0.0.1:port` each): round robin, so consecutive requests
 * alternate between replicas, and `X-Forwarded-For` set to the client address (the services trust loopback proxies).
 */
export async function startHaproxy(backends: string[]): Promise<TestHaproxy> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'haproxy-'));
  const servers = backends.map((b, i) => `  server r${i} ${new URL(b).host}`);
  const config = [
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  option forwardfor',
    // One backend connection per request, so round robin alternates per request and not per keep-alive socket.
    '  option http-server-close',
    'frontend web',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    ...servers,
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  // -db: foreground, so the PID is haproxy's own and killing it stops it.
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid === undefined) throw new Error('haproxy: failed to spawn');
  const pid = child.pid;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.on('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await gone;
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr.trim()}`);
    const up = await fetch(`${url}/health`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (up) return { url, pid, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`haproxy did not answer on ${url}: ${stderr.trim()}`);
}
