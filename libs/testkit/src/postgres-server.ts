import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { userInfo, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { faultToolAvailable } from './fault-tools';
import { freePort } from './ports';
import { until } from './until';

const run = promisify(execFile);

/** The machine's PostgreSQL binaries (Debian's postgresql-15); PG_BIN_DIR points elsewhere. */
export const POSTGRES_BIN_DIR = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of the test's own, to kill and restart (see `startPostgresServer`). */
export interface TestPostgresServer {
  /** `postgres://postgres@127.0.0.1:{port}/postgres`, trust authentication. */
  url: string;
  port: number;
  /** SIGKILL to the postmaster and every backend (a crash): connections drop, new ones are refused. */
  kill(): Promise<void>;
  /** Starts the server again on the same data directory and port (crash recovery); resolves when it accepts. */
  restart(): Promise<void>;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

/** Whether `startPostgresServer` can run here (see `faultToolAvailable`). */
export function postgresServerAvailable(): boolean {
  return faultToolAvailable(
    path.join(POSTGRES_BIN_DIR, 'initdb'),
    'apt-get install postgresql-15, or set PG_BIN_DIR',
  );
}

/**
 * A fresh PostgreSQL cluster (`initdb` in a temp directory) started with `pg_ctl` on a free port of 127.0.0.1.
 * PostgreSQL refuses to run as root, so as root its binaries run as the `postgres` user (`runuser`).
 */
export async function startPostgresServer(): Promise<TestPostgresServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'nrp-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (program: string, args: string[]) => {
    const binary = path.join(POSTGRES_BIN_DIR, program);
    return asRoot ? run('runuser', ['-u', 'postgres', '--', binary, ...args]) : run(binary, args);
  };
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    // Its socket in its own directory: the machine's server keeps /var/run/postgresql.
    `-k ${dir}`,
    // A test cluster: durability is not what is tested, and fsync costs seconds on a shared disk.
    '-c fsync=off',
  ].join(' ');
  const start = () =>
    pg('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);

  try {
    await pg('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const pidFile = path.join(dataDir, 'postmaster.pid');
  const kill = async () => {
    if (!existsSync(pidFile)) return;
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    const processes = [postmaster, ...childrenOf(postmaster)];
    for (const pid of processes) killIfAlive(pid);
    await until(() => processes.every((pid) => !alive(pid)), 'the killed PostgreSQL processes to exit');
    // A container's init may never reap them: a zombie keeps its pid, and PostgreSQL would take the lock files
    // naming it for a live server. Nothing runs any more, so they go, as after a machine crash.
    rmSync(pidFile, { force: true });
    rmSync(path.join(dir, `.s.PGSQL.${port}.lock`), { force: true });
  };
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    kill,
    restart: async () => {
      await start();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The processes whose parent is `pid` (PostgreSQL's backends and background workers), from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `/proc/{pid}/stat`: the command name (2nd field) is in parentheses and may hold spaces, so the fields
      // after it (state, parent pid, …) are read from the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // The process exited while the directory was read.
    }
  }
  return children;
}

/** Running, neither gone nor a zombie (a container's init may never reap the killed processes). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
