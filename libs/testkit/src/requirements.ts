import { spawnSync } from 'node:child_process';

/** Whether something accepts TCP connections on host:port (checked synchronously, so a test file can decide at load). */
export function tcpAnswers(host: string, port: number): boolean {
  const probe = `require('net').connect(${port}, ${JSON.stringify(host)})
    .on('connect', () => process.exit(0)).on('error', () => process.exit(1));
    setTimeout(() => process.exit(1), 2000);`;
  return spawnSync(process.execPath, ['-e', probe]).status === 0;
}

/** Whether `command` is on PATH. */
export function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/**
 * For a test file that needs parts a developer's machine may lack: with `${flag}=1` (CI sets it) a missing part
 * fails the file; otherwise ONE loud line names what is missing and the caller skips. True when nothing is missing.
 */
export function requireParts(flag: string, what: string, missing: string[]): boolean {
  if (missing.length === 0) return true;
  if (process.env[flag] === '1') throw new Error(`${flag}=1 but ${what} cannot run: ${missing.join('; ')}`);
  process.stderr.write(`SKIPPING ${what}: ${missing.join('; ')} (set ${flag}=1 to make this an error)\n`);
  return false;
}

/**
 * PostgreSQL and Redis several service processes can share: DATABASE_URL and REDIS_URL, else the machine's
 * 127.0.0.1:5432 (user postgres, database test) and 127.0.0.1:6379 when they answer. `missing` names what is not there.
 */
export function sharedServers(): { databaseUrl?: string; redisUrl?: string; missing: string[] } {
  const missing: string[] = [];
  const databaseUrl =
    process.env.DATABASE_URL ??
    (tcpAnswers('127.0.0.1', 5432) ? 'postgres://postgres@127.0.0.1:5432/test' : undefined);
  const redisUrl =
    process.env.REDIS_URL ?? (tcpAnswers('127.0.0.1', 6379) ? 'redis://127.0.0.1:6379' : undefined);
  if (!databaseUrl) missing.push('no PostgreSQL (DATABASE_URL unset and nothing answers on 127.0.0.1:5432)');
  if (!redisUrl) missing.push('no Redis (REDIS_URL unset and nothing answers on 127.0.0.1:6379)');
  return { databaseUrl, redisUrl, missing };
}
