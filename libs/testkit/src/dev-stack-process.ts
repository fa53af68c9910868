import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopChild } from './child-process';
import { freePort } from './ports';
import { until } from './until';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/** The ports `npm start` takes from its environment. */
export const DEV_STACK_PORTS = [
  'METADATA_PORT',
  'MINT_PORT',
  'OFFCHAIN_PORT',
  'RESOLVER_PORT',
  'ANVIL_PORT',
  'L2_ANVIL_PORT',
  'CONSOLE_PORT',
] as const;
export type DevStackPorts = Record<(typeof DEV_STACK_PORTS)[number], number>;

/** `.data/dev-stack.json`, as `scripts/dev-stack.ts` writes it. */
export interface DevStackFile {
  services: Record<'metadata' | 'mint' | 'offchain' | 'resolver', string>;
  console: string;
  /** The L1 (Sepolia) and the L2 (Base Sepolia). */
  chains: Record<'sepolia' | 'base-sepolia', { network: string; chainId: number; rpcUrl: string }>;
  contracts: Record<string, string>;
  names: Record<string, string>;
  offchainApiKey: string;
  accounts: Array<{ address: `0x${string}`; privateKey: `0x${string}` }>;
}

export interface DevStackProcess {
  stack: DevStackFile;
  ports: DevStackPorts;
  dataDir: string;
  child: ChildProcess;
  /** Everything the stack printed so far. */
  output(): string;
  /** Ctrl-C, as a person stops it (the stack stops its anvil), then the data directory is removed. */
  stop(): Promise<void>;
}

const READY_LINE = 'Name Records Platform is running';

/**
 * Runs `npm start` (scripts/dev-stack.ts) as a newcomer does, as its own process on free ports in a fresh data
 * directory, with only PATH and `env(ports)` in its environment, and waits for its summary (dev-stack.json written).
 */
export async function startDevStackProcess(
  env: (ports: DevStackPorts) => Record<string, string> = () => ({}),
  { timeoutMs = 200_000 }: { timeoutMs?: number } = {},
): Promise<DevStackProcess> {
  const ports = {} as DevStackPorts;
  for (const name of DEV_STACK_PORTS) ports[name] = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'nrp-dev-stack-'));
  const child = spawn(process.execPath, ['-r', 'esbuild-register', 'scripts/dev-stack.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      ...env(ports),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    await stopChild(child, { signal: 'SIGINT', graceMs: 30_000 });
    rmSync(dataDir, { recursive: true, force: true });
  };
  const file = path.join(dataDir, 'dev-stack.json');
  try {
    // Ready once it says so (the summary comes after dev-stack.json; a pipe may deliver it a moment later).
    await until(
      () => output.includes(READY_LINE) || child.exitCode !== null,
      'the dev stack running',
      timeoutMs,
    );
    if (!existsSync(file)) throw new Error(`the dev stack exited early:\n${output}`);
  } catch (err) {
    await stop();
    throw err;
  }
  const stack = JSON.parse(readFileSync(file, 'utf8')) as DevStackFile;
  return { stack, ports, dataDir, child, output: () => output, stop };
}
