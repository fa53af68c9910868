/** What the throughput benches share: server processes of `throughput-server.ts`, a load generator, medians. */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ThroughputServerKind } from './throughput-server';

export interface ServerProcess {
  url: string;
  /** The CPU time (user + system, µs) the server process has used so far. */
  cpuMicros(): Promise<number>;
  stop(): void;
}

/** A `bench/throughput-server.ts` process serving `kind`, once it listens. */
export function startServerProcess(
  kind: ThroughputServerKind,
  env: Record<string, string>,
): Promise<ServerProcess> {
  const child = fork(join(__dirname, 'throughput-server.ts'), [kind], {
    execArgv: ['-r', 'esbuild-register'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the ${kind} server exited with ${code}`)));
    child.once('message', (m: { port: number }) =>
      resolve({
        url: `http://127.0.0.1:${m.port}`,
        cpuMicros: () =>
          new Promise((answered) => {
            child.once('message', (usage: { cpuMicros: number }) => answered(usage.cpuMicros));
            child.send('cpu');
          }),
        stop: () => child.kill(),
      }),
    );
  });
}

/**
 * The load generator runs in a worker thread, so the servers under test (in the main thread) are measured, not
 * the client's own CPU: `total` GETs of a URL over `concurrency` keep-alive connections; answers requests/s.
 */
const LOADER = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
parentPort.on('message', async ({ url, total, concurrency }) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let failures = 0;
  // A kept-alive socket the server closed as it was reused is retried once on a new one (Node's advice).
  const get = (retried = false) => new Promise((resolve, reject) => {
    const req = http.request(url, { agent }, (res) => {
      if (res.statusCode !== 200) failures++;
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', (err) => {
      if (!retried && req.reusedSocket && err.code === 'ECONNRESET') get(true).then(resolve, reject);
      else reject(err);
    });
    req.end();
  });
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) { next++; await get(); }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  parentPort.postMessage({ rps: total / seconds, failures });
});
`;

export function startLoader(concurrency: number): {
  load(url: string, total: number): Promise<number>;
  stop(): Promise<number>;
} {
  const worker = new Worker(LOADER, { eval: true });
  let pending:
    { resolve(rps: number): void; reject(err: unknown): void; url: string; total: number } | undefined;
  worker.on('message', (m: { rps: number; failures: number }) => {
    const p = pending;
    pending = undefined;
    if (!p) return;
    if (m.failures > 0) p.reject(new Error(`${m.failures} of ${p.total} requests to ${p.url} failed`));
    else p.resolve(m.rps);
  });
  worker.on('error', (err) => pending?.reject(err));
  return {
    load: (url, total) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject, url, total };
        worker.postMessage({ url, total, concurrency });
      }),
    stop: () => worker.terminate(),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
