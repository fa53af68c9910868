// Not exported from the package's index: only the browser tests load playwright-core.
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { requireParts } from './requirements';

/** Debian's Chromium (`apt-get install chromium`), or CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether the browser tests of `what` can run: without Chromium they skip with one loud line, and with
 * REQUIRE_BROWSER_TESTS=1 (CI) that is an error.
 */
export function browserTestsCanRun(what: string): boolean {
  return requireParts(
    'REQUIRE_BROWSER_TESTS',
    what,
    existsSync(CHROMIUM_PATH)
      ? []
      : [`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`],
  );
}

/**
 * Headless Chromium with a fresh profile in `profileDir`. The flags keep it off the network this machine does not
 * have: no background connections, component updates, sync or QUIC (each is refused, many at a time, otherwise).
 */
export function launchChromium(
  profileDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
