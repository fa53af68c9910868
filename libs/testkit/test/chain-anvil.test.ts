import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { anvilAccounts, startAnvil, type AnvilNode } from '../src/anvil';

/** Running (a zombie waiting for an init that does not reap, as in some containers, counts as dead). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no procfs: kill(0) succeeded
  }
}

describe('startAnvil', () => {
  let node: AnvilNode | undefined;
  afterEach(async () => {
    await node?.stop();
    node = undefined;
  });

  it('starts anvil on a free port with sepolia chain id and funded well-known accounts, then stops it', async () => {
    node = await startAnvil();
    expect(node.chainId).toBe(11155111);
    expect(node.rpcUrl).toBe(`http://127.0.0.1:${node.port}`);
    const provider = new JsonRpcProvider(node.rpcUrl, undefined, { staticNetwork: true });
    expect((await provider.getNetwork()).chainId).toBe(11155111n);
    expect(node.accounts).toHaveLength(10);
    expect(node.accounts[0]?.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    for (const account of node.accounts) {
      expect(new Wallet(account.privateKey).address).toBe(account.address);
      expect(await provider.getBalance(account.address)).toBe(10_000n * 10n ** 18n);
    }
    provider.destroy();
    const { pid } = node;
    expect(isAlive(pid)).toBe(true);
    await node.stop();
    node = undefined;
    expect(isAlive(pid)).toBe(false);
  });

  it('honours chainId and an explicit port, and two nodes run side by side', async () => {
    node = await startAnvil({ chainId: 1 });
    const other = await startAnvil({ chainId: 31337, port: node.port + 1 });
    try {
      expect(other.port).toBe(node.port + 1);
      const provider = new JsonRpcProvider(other.rpcUrl, undefined, { staticNetwork: true });
      expect(await provider.send('eth_chainId', [])).toBe('0x7a69');
      provider.destroy();
      expect(node.pid).not.toBe(other.pid);
    } finally {
      await other.stop();
    }
  });

  it('kills anvil when the owning process exits without stop() (crash fallback)', () => {
    const anvilModule = path.resolve(__dirname, '../src/anvil.ts');
    const script = `require(${JSON.stringify(anvilModule)}).startAnvil().then((n) => { console.log(n.pid); throw new Error('crash'); });`;
    const child = spawnSync(process.execPath, ['--require', 'esbuild-register', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.status).not.toBe(0);
    const pid = Number(child.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it('derives the standard anvil keys', () => {
    expect(anvilAccounts()[1]).toEqual({
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    });
  });
});
