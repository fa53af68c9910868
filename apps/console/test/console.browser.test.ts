/**
 * The console in Debian's Chromium against `npm start` (one dev stack for the file), with a wallet the test
 * injects: an EIP-1193 provider whose signatures come from an anvil account's key in this process and whose other
 * requests go to anvil. It starts on the wrong chain (mainnet) and can be told to reject the next request.
 * Screenshots go to test-output/console/ (CONSOLE_SCREENSHOTS=1: to apps/console/docs/, as the README shows them).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { type Hex, hexToString, isHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createOffchainClient } from '@nrp/client';
import { startDevStackProcess, until, type DevStackFile, type DevStackProcess } from '@nrp/testkit';
import { browserTestsCanRun, launchChromium } from '@nrp/testkit/src/browser';

const root = path.resolve(__dirname, '../../..');
const browserAvailable = browserTestsCanRun('the console browser test');
const describeInBrowser = browserAvailable ? describe : describe.skip;
const screenshots =
  process.env.CONSOLE_SCREENSHOTS === '1'
    ? path.join(root, 'apps/console/docs')
    : path.join(root, 'test-output/console');

interface WalletRequest {
  method: string;
  params?: unknown[];
}

/** Defines window.ethereum in the page; every request goes to the test's `nrpWallet`. */
const INJECTED_PROVIDER = `
  (() => {
    const listeners = {};
    window.ethereum = {
      async request({ method, params }) {
        const answer = await window.nrpWallet({ method, params });
        if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
        if (method === 'wallet_switchEthereumChain') (listeners.chainChanged || []).forEach((l) => l(params[0].chainId));
        return answer.result;
      },
      on(event, listener) { (listeners[event] = listeners[event] || []).push(listener); },
      removeListener(event, listener) { listeners[event] = (listeners[event] || []).filter((l) => l !== listener); },
    };
  })();
`;

describeInBrowser('the console in Chromium, against npm start', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'nrp-console-'));
  let devStack: DevStackProcess | undefined;
  let stack: DevStackFile;
  let context: BrowserContext;
  let page: Page;
  /** What the wallet does: its chain, and a method whose next request it rejects (EIP-1193 code 4001). */
  const wallet = { chainId: 1, rejectNext: undefined as string | undefined, requests: [] as string[] };

  async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
    const response = await fetch(stack.chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw Object.assign(new Error(body.error.message), body.error);
    return body.result;
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    // The console's host signs in: the page's own `location.host`.
    devStack = await startDevStackProcess((ports) => ({ SIWE_DOMAINS: `localhost:${ports.CONSOLE_PORT}` }));
    stack = devStack.stack;

    const [owner] = stack.accounts;
    if (!owner) throw new Error('the dev stack has no accounts');
    const account = privateKeyToAccount(owner.privateKey);
    mkdirSync(screenshots, { recursive: true });
    context = await launchChromium(mkdtempSync(path.join(work, 'chromium-profile-')), {
      width: 1000,
      height: 800,
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.console });
    await context.exposeFunction('nrpWallet', async ({ method, params = [] }: WalletRequest) => {
      wallet.requests.push(method);
      if (wallet.rejectNext === method) {
        wallet.rejectNext = undefined;
        return { error: { code: 4001, message: 'User rejected the request.' } };
      }
      try {
        switch (method) {
          case 'eth_requestAccounts':
          case 'eth_accounts':
            return { result: [account.address] };
          case 'eth_chainId':
            return { result: `0x${wallet.chainId.toString(16)}` };
          case 'wallet_switchEthereumChain': {
            const [{ chainId }] = params as [{ chainId: Hex }];
            if (Number(chainId) !== stack.chain.chainId) {
              return { error: { code: 4902, message: `Unrecognized chain ${chainId}` } };
            }
            wallet.chainId = Number(chainId);
            return { result: null };
          }
          case 'personal_sign': {
            const [message] = params as [Hex];
            const text = isHex(message) ? hexToString(message) : message;
            return { result: await account.signMessage({ message: text }) };
          }
          default:
            // eth_sendTransaction included: anvil's accounts are unlocked, so anvil signs as the account would.
            return { result: await rpc(method, params) };
        }
      } catch (err) {
        const { code = -32603, message } = err as { code?: number; message: string };
        return { error: { code, message } };
      }
    });
    await context.addInitScript(INJECTED_PROVIDER);
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    await devStack?.stop();
    rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('connects the wallet, says it is on the wrong chain and switches it, and signs in (a rejected signature first)', async () => {
    await page.goto(stack.console);
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    const status = page.locator('#wallet-status');
    await expectText(status, 'on chain 1: this console works on Sepolia (chain 11155111)');
    await shot('1-wrong-chain');
    await page.getByRole('button', { name: 'Switch to Sepolia' }).click();
    await expectText(status, `Connected as ${stack.accounts[0]?.address} on Sepolia.`);
    expect(wallet.chainId).toBe(stack.chain.chainId);
    expect(await page.locator('#names').isHidden()).toBe(true);

    wallet.rejectNext = 'personal_sign';
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.locator('#wallet-errors [role="alert"]'), 'Rejected in the wallet');
    await expectText(status, 'Connected as');
    expect(await page.locator('#keys').isHidden()).toBe(true);

    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(status, 'Signed in as');
    expect(await page.locator('#wallet-errors').textContent()).toBe('');
    expect(await page.locator('#keys').isVisible()).toBe(true);
  }, 60_000);

  it('shows a name’s setup state; a rejected transaction changes nothing; one click sends the setup', async () => {
    const input = page.getByLabel('Name', { exact: true });
    await input.fill('offchain.eth');
    await input.press('Enter');
    const ready = page.locator('li[data-name="offchain.eth"]');
    await expectText(ready, 'Ready');

    await input.fill('demo.eth');
    await page.getByRole('button', { name: 'Check' }).click();
    const demo = page.locator('li[data-name="demo.eth"]');
    await expectText(demo, 'transaction(s) to send');
    expect(await demo.getAttribute('data-state')).toBe('needs-setup');
    await shot('2-names');

    wallet.rejectNext = 'eth_sendTransaction';
    await demo.getByRole('button', { name: 'Send setup transactions' }).click();
    await expectText(demo.locator('[role="alert"]'), 'Rejected in the wallet');
    expect(await demo.getAttribute('data-state')).toBe('needs-setup');

    await demo.getByRole('button', { name: 'Send setup transactions' }).click();
    await until(async () => (await demo.getAttribute('data-state')) === 'ready', 'demo.eth ready', 30_000);
    await expectText(demo, '(this platform)');
    const setup = await createOffchainClient({ baseUrl: stack.services.offchain }).parentSetup(
      'demo.eth',
      'sepolia',
    );
    expect(setup).toMatchObject({ ready: true, steps: [] });
  }, 60_000);

  it('creates a key shown once and copied, which then writes subnames; lists and revokes it; shows a refusal in words', async () => {
    await page.getByLabel('Parent name').fill('offchain.eth');
    await page.getByLabel('Note (optional)').fill('console test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#new-key');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    await page.getByRole('button', { name: 'Copy' }).click();
    await expectText(page.locator('#created-key [role="status"]'), 'Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    const row = page.locator('#keys-table tbody tr');
    await until(async () => (await row.count()) === 1, 'the key in the list', 10_000);
    await expectText(row, 'console test');
    await shot('3-keys');

    const offchain = createOffchainClient({ baseUrl: stack.services.offchain });
    const written = await offchain.createOrUpdateSubname(
      {
        parentName: 'offchain.eth',
        label: 'from-console',
        texts: [{ key: 'url', value: 'https://example.com' }],
      },
      key,
    );
    expect(written.fullName).toBe('from-console.offchain.eth');

    await page.reload();
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.locator('#wallet-status'), 'Signed in as');
    await until(async () => (await row.count()) === 1, 'the key listed after reload', 10_000);
    expect(await page.locator('#new-key').count()).toBe(0);
    await row.getByRole('button', { name: /^Revoke key/ }).click();
    await expectText(page.locator('#keys-state'), 'No keys yet.');
    await expect(
      offchain.createOrUpdateSubname({ parentName: 'offchain.eth', label: 'after-revoke' }, key),
    ).rejects.toMatchObject({ status: 401 });

    await page.getByLabel('Parent name').fill('nobody-owns-this.eth');
    await page.getByRole('button', { name: 'Create key' }).click();
    const problem = page.locator('#keys [role="alert"]').first();
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/\(403\).+nobody-owns-this\.eth/);
    await shot('3-keys-refused');
  }, 60_000);

  it('a service that cannot be reached: its failure is shown in words where it was needed, the rest works', async () => {
    const setupRoute = `${stack.services.offchain}/api/v1/parents/**`;
    await page.route(setupRoute, (route) => route.abort('connectionrefused'));
    const input = page.getByLabel('Name', { exact: true });
    await input.fill('unreachable.eth');
    await input.press('Enter');
    await expectText(page.locator('li[data-name="unreachable.eth"] [role="alert"]'), 'Service unreachable');
    await page.unroute(setupRoute);
    await page.getByLabel('Parent name').fill('offchain.eth');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    await expectText(page.locator('#keys-state'), '1 active key(s).');
  }, 30_000);

  it('works at phone width and by keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#name-input').focus();
    await page.keyboard.type('offchain.eth');
    await page.keyboard.press('Enter');
    await expectText(page.locator('li[data-name="offchain.eth"]'), 'Ready');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('4-phone');
  }, 30_000);

  async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
    await until(
      async () => ((await locator.first().textContent()) ?? '').includes(text),
      `"${text}" in ${locator.toString()}`,
      15_000,
    );
  }
});
