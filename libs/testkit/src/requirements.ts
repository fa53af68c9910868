import { spawnSync } from 'node:child_process';

/** Whether something accepts TCP connections on host:port (synchronously, so a test file can decide at load). */
function tcpAnswers(host: string, port: number): boolean {
  const probe = `require('net').connect(${port}, ${JSON.stringify(host)})
    .on('connect', () => process.exit(0)).on('error', () => process.exit(1));
    setTimeout(() => process.exit(1), 2000);`;
  return spawnSync(process.execPath, ['-e', probe]).status === 0;
}

/** A line per command not on PATH, naming the Debian package of the same name that provides it. */
export function missingCommands(...commands: string[]): string[] {
  return commands
    .filter((command) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0)
    .map((command) => `no ${command} (apt-get install ${command})`);
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

export const NO_SHARED_POSTGRES =
  'no PostgreSQL (DATABASE_URL is unset and nothing answers on 127.0.0.1:5432)';

/**
 * A PostgreSQL several service processes can share: DATABASE_URL, else the machine's 127.0.0.1:5432 (user postgres,
 * database test) when it answers; undefined when there is none.
 */
export function sharedPostgresUrl(): string | undefined {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  return tcpAnswers('127.0.0.1', 5432) ? 'postgres://postgres@127.0.0.1:5432/test' : undefined;
}
