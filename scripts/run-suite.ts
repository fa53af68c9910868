/**
 * `npm test`'s last step: jest, then a check that no process the suite started outlives it. A process of the suite
 * is one that was not running when the suite began and whose environment carries this run's marker or whose command
 * line names this checkout (anvil from its node_modules, a service from its apps/). Any such anvil, PostgreSQL,
 * Redis, HAProxy or Node process still running after jest has exited is listed, killed, and fails the run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const MARKER_NAME = 'NRP_TEST_SUITE';
const markerValue = `${process.pid}-${Date.now()}`;
const watched = new Set(['anvil', 'postgres', 'redis-server', 'haproxy', 'node']);

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the process ended, or is not ours to read
  }
}

function processIds(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

interface Leftover {
  pid: number;
  command: string;
}

function leftovers(before: Set<number>): Leftover[] {
  const found: Leftover[] = [];
  for (const pid of processIds()) {
    if (before.has(pid) || pid === process.pid) continue;
    const name = read(`/proc/${pid}/comm`).trim();
    if (!watched.has(name)) continue;
    const command = read(`/proc/${pid}/cmdline`).split('\0').join(' ').trim();
    const environment = read(`/proc/${pid}/environ`).split('\0');
    if (environment.includes(`${MARKER_NAME}=${markerValue}`) || command.includes(`${root}/`))
      found.push({ pid, command });
  }
  return found;
}

async function main(): Promise<number> {
  const before = new Set(processIds());
  const jest = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, [MARKER_NAME]: markerValue },
  });
  // Processes asked to stop at the end of the suite may take a moment to go.
  const deadline = Date.now() + 10_000;
  let left = leftovers(before);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    left = leftovers(before);
  }
  if (left.length === 0) return jest.status ?? 1;
  console.error(`\n${left.length} process(es) outlived the test suite (killed now):`);
  for (const { pid, command } of left) {
    console.error(`  ${pid} ${command}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return 1;
}

void main().then((code) => process.exit(code));
