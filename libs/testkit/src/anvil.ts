import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { stopChild } from './child-process';
import { freePort } from './ports';
import { HDNodeWallet, Mnemonic } from 'ethers';

/** Anvil's default mnemonic; its first 10 accounts are funded with 10,000 ETH each. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export interface AnvilAccount {
  address: string;
  privateKey: string;
}

export interface AnvilOptions {
  /** Default 11155111 (sepolia), so services configured for `sepolia` can point at it. */
  chainId?: number;
  /** Default: a random free port. */
  port?: number;
}

export interface AnvilNode {
  rpcUrl: string;
  chainId: number;
  port: number;
  pid: number;
  accounts: AnvilAccount[];
  stop(): Promise<void>;
}

export class AnvilError extends Error {
  override name = 'AnvilError';
}

let cachedAccounts: AnvilAccount[] | undefined;

/** The 10 accounts anvil funds by default (BIP-44 path m/44'/60'/0'/0/i of {@link ANVIL_MNEMONIC}). */
export function anvilAccounts(): AnvilAccount[] {
  if (!cachedAccounts) {
    const root = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(ANVIL_MNEMONIC), "m/44'/60'/0'/0");
    cachedAccounts = Array.from({ length: 10 }, (_, i) => {
      const w = root.deriveChild(i);
      return { address: w.address, privateKey: w.privateKey };
    });
  }
  return cachedAccounts.map((a) => ({ ...a }));
}

const PLATFORMS: Record<string, string> = { linux: 'linux', darwin: 'darwin', win32: 'win32' };
const ARCHS: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** Path of the platform's anvil binary from the `@foundry-rs/anvil-<platform>-<arch>` package. */
export function anvilBinaryPath(): string {
  const platform = PLATFORMS[process.platform];
  const arch = ARCHS[process.arch];
  if (!platform || !arch)
    throw new AnvilError(`anvil: unsupported platform ${process.platform}-${process.arch}`);
  const pkg = `@foundry-rs/anvil-${platform}-${arch}`;
  let pkgJson: string;
  try {
    pkgJson = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new AnvilError(`anvil: package ${pkg} is not installed`);
  }
  return path.join(path.dirname(pkgJson), 'bin', platform === 'win32' ? 'anvil.exe' : 'anvil');
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Fallback for a test that crashed or forgot stop(): never leave anvil running after this process.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    const body: unknown = await res.json();
    if (typeof body === 'object' && body && 'result' in body && typeof body.result === 'string') {
      return Number(BigInt(body.result));
    }
  } catch {
    // not up yet
  }
  return undefined;
}

async function startOnce(chainId: number, port: number): Promise<AnvilNode> {
  const args = ['--silent', '--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)];
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid === undefined) throw new AnvilError('anvil: failed to spawn');
  const pid = child.pid;
  running.add(child);
  installExitHook();
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  child.once('exit', () => running.delete(child));
  // A forgotten node must not keep the test runner alive; the exit hook kills it.
  child.unref();
  const stderrStream = child.stderr as unknown as { unref?: () => void } | null;
  stderrStream?.unref?.();

  const stop = async (): Promise<void> => {
    await stopChild(child, { graceMs: 3000 });
    running.delete(child);
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new AnvilError(`anvil exited early (code ${String(child.exitCode)}): ${stderr.trim()}`);
    }
    const answered = await rpcChainId(rpcUrl);
    if (answered !== undefined) {
      if (answered !== chainId) {
        await stop();
        throw new AnvilError(`anvil at ${rpcUrl} answered chain id ${answered}, expected ${chainId}`);
      }
      return { rpcUrl, chainId, port, pid, accounts: anvilAccounts(), stop };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new AnvilError(`anvil did not answer eth_chainId on ${rpcUrl} within 15s: ${stderr.trim()}`);
}

/** From now on `node` mines a block every `seconds` (pending transactions wait for it) instead of one per transaction. */
export async function setIntervalMining(node: AnvilNode, seconds: number): Promise<void> {
  const res = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_setIntervalMining', params: [seconds] }),
  });
  const body = (await res.json()) as { error?: { message?: string } };
  if (body.error) throw new AnvilError(`evm_setIntervalMining: ${body.error.message ?? 'refused'}`);
}

/** Starts a local anvil node (the binary itself, one PID) and waits until it answers `eth_chainId`. */
export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilNode> {
  const chainId = opts.chainId ?? 11155111;
  if (opts.port !== undefined) return startOnce(chainId, opts.port);
  // A random port can be taken between probing and binding: retry a couple of times.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(chainId, await freePort());
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new AnvilError(String(lastError));
}
