/** What the console's browser tests wait for on the page. */
import type { Page } from 'playwright-core';
import { until } from '@nrp/testkit';

/** Waits for `text` in the locator's first element; a timeout says what the element read instead. */
export async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  let seen = '';
  await until(
    async () => (seen = (await locator.first().textContent()) ?? '').includes(text),
    `"${text}" in ${locator.toString()}`,
    15_000,
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; it read "${seen}"`);
  });
}
