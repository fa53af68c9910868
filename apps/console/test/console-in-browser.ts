/** What the console's browser tests share: `npm start`, Debian's Chromium with the test wallet, the page's errors. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import {
  startDevStackProcess,
  type DevStackFile,
  type DevStackPorts,
  type DevStackProcess,
} from '@nrp/testkit';
import { launchChromium } from '@nrp/testkit/src/browser';
import { injectWallet, type TestWallet } from './browser-wallet';

const root = path.resolve(__dirname, '../../..');

/** Where screenshots go: the console's docs with CONSOLE_SCREENSHOTS=1 (to refresh them), else test-output. */
export const SCREENSHOTS =
  process.env.CONSOLE_SCREENSHOTS === '1'
    ? path.join(root, 'apps/console/docs')
    : path.join(root, 'test-output/console');

export interface ConsoleInBrowser {
  devStack: DevStackProcess;
  stack: DevStackFile;
  context: BrowserContext;
  page: Page;
  wallet: TestWallet;
  /** A directory of this run's own (downloads, exports), removed on close. */
  workDir: string;
  /**
   * The page's console errors, uncaught errors and Content-Security-Policy violations (not Chromium's request for
   * the /favicon.ico the console does not serve); empty it with `pageErrors.length = 0`.
   */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * `npm start` with `stackEnv` (the console's host among its sign-in domains) and one page of Chromium (1000x800,
 * clipboard allowed) with the test wallet injected, not yet on the console.
 */
export async function openConsoleInBrowser(
  stackEnv: (ports: DevStackPorts) => Record<string, string> = () => ({}),
): Promise<ConsoleInBrowser> {
  const work = mkdtempSync(path.join(tmpdir(), 'nrp-console-'));
  const devStack = await startDevStackProcess((ports) => ({
    SIWE_DOMAINS: `localhost:${ports.CONSOLE_PORT}`,
    ...stackEnv(ports),
  }));
  const { stack } = devStack;
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close();
    await devStack.stop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    mkdirSync(SCREENSHOTS, { recursive: true });
    context = await launchChromium(mkdtempSync(path.join(work, 'chromium-profile-')), {
      width: 1000,
      height: 800,
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.console });
    const wallet = await injectWallet(context, stack);
    await context.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP violation: ${event.violatedDirective} (${event.blockedURI || event.sample})`),
      ),
    );
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
        pageErrors.push(message.text());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return { devStack, stack, context, page, wallet, workDir: work, pageErrors, close };
  } catch (err) {
    await close();
    throw err;
  }
}
