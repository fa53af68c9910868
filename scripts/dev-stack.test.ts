/**
 * `npm start` as a newcomer runs it: a fresh data directory, the whole stack in one process, the README's curl
 * examples answered, and Ctrl-C stopping everything, anvil included.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, JsonRpcProvider, namehash } from 'ethers';
import { freePort } from '@nrp/testkit';

const root = path.resolve(__dirname, '..');

interface DevStack {
  services: Record<'metadata' | 'mint' | 'offchain' | 'resolver', string>;
  chain: { rpcUrl: string; chainId: number; network: string };
  contracts: Record<string, string>;
  names: Record<string, string>;
  offchainApiKey: string;
  accounts: Array<{ address: string; privateKey: string }>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Each README shell block that calls curl, whole, continuation lines joined. Blocks that install or deploy (npm,
 * docker, kubectl) are not examples to run here.
 */
function readmeExampleBlocks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)]
    .map((block) => block[1] ?? '')
    .filter((block) => /^curl /m.test(block) && !/^(npm|docker|kubectl) /m.test(block));
}

/**
 * Points a README block at this test's stack and makes each curl fail on an HTTP error, except those after a
 * comment announcing error answers (`# 400s`), which show failures on purpose.
 */
function adaptExample(block: string, ports: Record<string, number | undefined>, stackFile: string): string {
  let expectErrors = false;
  return block
    .replace(
      /(localhost|127\.0\.0\.1):(300[1-4]|8545)/g,
      (_m, host: string, port: string) => `${host}:${ports[port]}`,
    )
    .replaceAll('./.data/dev-stack.json', stackFile)
    .replaceAll('.data/dev-stack.json', stackFile)
    .split('\n')
    .map((line) => {
      if (/^#\s*4\d\d/.test(line)) expectErrors = true;
      return !expectErrors && line.startsWith('curl ')
        ? line.replace(/^curl /, 'curl --fail-with-body -sS ')
        : line;
    })
    .join('\n');
}

/** Runs in `cwd` (files the examples write stay out of the repository); `node -e` examples find its packages. */
function run(command: string, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, NODE_PATH: path.join(root, 'node_modules') };
    execFile(
      'bash',
      ['-e', '-o', 'pipefail', '-c', command],
      { cwd, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('npm start (the dev stack)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'nrp-dev-stack-'));
  const ports: Record<string, number> = {};
  let child: ChildProcess;
  let stack: DevStack;
  let output = '';

  beforeAll(async () => {
    for (const name of ['METADATA_PORT', 'MINT_PORT', 'OFFCHAIN_PORT', 'RESOLVER_PORT', 'ANVIL_PORT']) {
      ports[name] = await freePort();
    }
    child = spawn(process.execPath, ['-r', 'esbuild-register', 'scripts/dev-stack.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const file = path.join(dataDir, 'dev-stack.json');
    await waitFor(() => existsSync(file) || child.exitCode !== null, 'dev-stack.json', 150_000);
    if (!existsSync(file)) throw new Error(`the dev stack exited early:\n${output}`);
    stack = JSON.parse(readFileSync(file, 'utf8')) as DevStack;
  }, 180_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a summary and writes dev-stack.json in the documented shape', () => {
    expect(output).toContain('Name Records Platform is running');
    expect(stack.services).toEqual({
      metadata: `http://127.0.0.1:${ports.METADATA_PORT}`,
      mint: `http://127.0.0.1:${ports.MINT_PORT}`,
      offchain: `http://127.0.0.1:${ports.OFFCHAIN_PORT}`,
      resolver: `http://127.0.0.1:${ports.RESOLVER_PORT}`,
    });
    expect(stack.chain).toEqual({
      rpcUrl: `http://127.0.0.1:${ports.ANVIL_PORT}`,
      chainId: 11155111,
      network: 'sepolia',
    });
    for (const contract of [
      'ensRegistry',
      'publicResolver',
      'reverseRegistrar',
      'offchainResolver',
      'mintController',
    ]) {
      expect(stack.contracts[contract]).toMatch(/^0x[0-9a-fA-F]{40}$/);
    }
    expect(stack.names).toMatchObject({
      onchain: 'demo.eth',
      offchainParent: 'offchain.eth',
      mintParent: 'mint.eth',
    });
    expect(stack.offchainApiKey).toEqual(expect.any(String));
    expect(stack.accounts).toHaveLength(10);
    expect(stack.accounts[0]).toEqual({
      address: expect.any(String),
      privateKey: expect.stringMatching(/^0x/),
    });
  });

  it('demo.eth belongs to the first account, with records and its reverse record; the last account has none', async () => {
    const provider = new JsonRpcProvider(stack.chain.rpcUrl, undefined, { staticNetwork: true });
    try {
      const registry = new Contract(
        stack.contracts.ensRegistry ?? '',
        [
          'function owner(bytes32) view returns (address)',
          'function resolver(bytes32) view returns (address)',
        ],
        provider,
      );
      const resolver = new Contract(
        stack.contracts.publicResolver ?? '',
        [
          'function text(bytes32,string) view returns (string)',
          'function addr(bytes32) view returns (address)',
          'function name(bytes32) view returns (string)',
        ],
        provider,
      );
      const [first] = stack.accounts;
      const last = stack.accounts[stack.accounts.length - 1];
      const node = namehash('demo.eth');
      expect(await registry.getFunction('owner')(node)).toBe(first?.address);
      expect(await registry.getFunction('resolver')(node)).toBe(stack.contracts.publicResolver);
      for (const key of ['description', 'url', 'com.twitter']) {
        expect(await resolver.getFunction('text')(node, key)).not.toBe('');
      }
      expect(await resolver.getFunction('addr')(node)).toBe(first?.address);
      const reverseNode = (address: string) => namehash(`${address.slice(2).toLowerCase()}.addr.reverse`);
      expect(await resolver.getFunction('name')(reverseNode(first?.address ?? ''))).toBe('demo.eth');
      expect(await registry.getFunction('resolver')(reverseNode(last?.address ?? ''))).toBe(
        '0x0000000000000000000000000000000000000000',
      );
    } finally {
      provider.destroy();
    }
  });

  it('answers the curl examples of the READMEs', async () => {
    const readmes = [
      'README.md',
      'apps/metadata-svc/README.md',
      'apps/mint-svc/README.md',
      'apps/offchain-svc/README.md',
      'apps/resolver-svc/README.md',
    ];
    const byPort: Record<string, number | undefined> = {
      '3001': ports.METADATA_PORT,
      '3002': ports.MINT_PORT,
      '3003': ports.OFFCHAIN_PORT,
      '3004': ports.RESOLVER_PORT,
      '8545': ports.ANVIL_PORT,
    };
    const stackFile = path.join(dataDir, 'dev-stack.json');
    for (const file of readmes) {
      const blocks = readmeExampleBlocks(path.join(root, file));
      if (blocks.length === 0) throw new Error(`${file} has no curl examples`);
      for (const block of blocks) {
        const result = await run(adaptExample(block, byPort, stackFile), dataDir);
        if (result.code !== 0)
          throw new Error(`${file} example failed (exit ${result.code}):\n${block}\n${result.output}`);
      }
    }
  }, 120_000);

  it('Ctrl-C stops the services and anvil', async () => {
    child.kill('SIGINT');
    await waitFor(() => child.exitCode !== null, 'the dev stack to exit', 30_000);
    expect(child.exitCode).toBe(0);
    for (const port of Object.values(ports)) expect(await portOpen(port)).toBe(false);
  }, 40_000);
});
