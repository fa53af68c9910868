/**
 * The resolver choice of an L2 parent in Debian's Chromium against `npm start` (one dev stack for the file), with the
 * injected test wallet (test/browser-wallet.ts): `l2.eth` on the signed resolver and `proven.eth` on the proving one
 * each list both resolvers with offchain-svc's words for what they trust and the one set marked; an offchain parent
 * lists none; switching `l2.eth` to the proven resolver through the page changes its resolver on chain.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { getEnsAddress, getEnsResolver } from 'viem/actions';
import { createOffchainClient, type OffchainClient, type ParentSetup } from '@nrp/client/offchain';
import { until, type DevStackFile } from '@nrp/testkit';
import { browserTestsCanRun } from '@nrp/testkit/src/browser';
import type { TestWallet } from './browser-wallet';
import { openConsoleInBrowser, SCREENSHOTS, type ConsoleInBrowser } from './console-in-browser';
import { expectText } from './page-text';

const browserAvailable = browserTestsCanRun('the console browser test of L2 resolvers');
const describeInBrowser = browserAvailable ? describe : describe.skip;

describeInBrowser('the resolver of an L2 parent in the console, against npm start', () => {
  let browser: ConsoleInBrowser;
  let stack: DevStackFile;
  let page: Page;
  let wallet: TestWallet;
  let pageErrors: string[];
  let offchain: OffchainClient;
  let l1: PublicClient;
  let universalResolverAddress: Address;

  const card = (name: string) => page.locator(`#names-list li[data-name="${name}"]`);
  const option = (name: string, kind: string) =>
    card(name).locator(`li.resolver-option[data-kind="${kind}"]`);
  const setup = (name: string): Promise<ParentSetup> => offchain.parentSetup(name, 'sepolia');
  const resolverOf = (name: string) => getEnsResolver(l1, { name, universalResolverAddress });

  /** Checks `name` on the page and waits until its card is read. */
  async function check(name: string): Promise<void> {
    await page.locator('#name-input').fill(name);
    await page.getByRole('button', { name: 'Check' }).click();
    await expectText(card(name), 'Controller');
  }

  /** What the card of an L2 parent shows of each option: kind, whether marked as set, trust words, its buttons. */
  async function shownOptions(name: string) {
    return card(name)
      .locator('li.resolver-option')
      .evaluateAll((items) =>
        items.map((li) => ({
          kind: li.getAttribute('data-kind'),
          current: li.getAttribute('aria-current') === 'true',
          badge: li.querySelector('.badge')?.textContent,
          trust: li.querySelector('.trust')?.textContent,
          buttons: [...li.querySelectorAll('button')].map((b) => b.textContent),
        })),
      );
  }

  beforeAll(async () => {
    browser = await openConsoleInBrowser();
    ({ stack, page, wallet, pageErrors } = browser);
    offchain = createOffchainClient({ baseUrl: stack.services.offchain });
    l1 = createPublicClient({ transport: http(stack.chains.sepolia.rpcUrl) });
    universalResolverAddress = stack.contracts.universalResolver as Address;
    await page.goto(stack.console);
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await page.getByRole('button', { name: 'Switch to Sepolia' }).click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.locator('#wallet-status'), `Signed in as ${wallet.address}`);
  }, 300_000);

  afterAll(() => browser?.close(), 60_000);

  it('lists both resolvers of each L2 parent in the setup endpoint’s words, the one set marked; none for an offchain parent', async () => {
    const { l2Parent, provenL2Parent } = stack.names;
    if (!l2Parent || !provenL2Parent) throw new Error('the dev stack names no L2 parents');
    for (const [name, set, other] of [
      [l2Parent, 'signed', 'ProvenL2Resolver'],
      [provenL2Parent, 'proven', 'L2NameResolver'],
    ] as const) {
      const answer = await setup(name);
      expect(answer.l2?.options.map((o) => [o.kind, o.chosen])).toEqual([
        ['signed', set === 'signed'],
        ['proven', set === 'proven'],
      ]);
      await check(name);
      expect(await card(name).getAttribute('data-state')).toBe('ready');
      // Its subnames are tokens on the L2: no offchain subnames to manage.
      expect(await card(name).getByRole('button', { name: 'Manage subnames' }).count()).toBe(0);
      // The page shows the endpoint's own words for each, and marks the one set on the name.
      expect(await shownOptions(name)).toEqual(
        answer.l2?.options.map((o) => ({
          kind: o.kind,
          current: o.chosen,
          badge: o.chosen ? 'In use' : 'Not set',
          trust: o.trust,
          buttons: o.chosen ? [] : [`Switch to ${other}`],
        })),
      );
      await expectText(option(name, set), answer.l2?.options.find((o) => o.chosen)?.gatewayUrl ?? '');
    }
    // The words are the service's: the signer's address and the verifier's, read from its configuration.
    const [signed, proven] = (await setup(l2Parent)).l2?.options ?? [];
    expect(signed?.trust).toMatch(/gateway signer 0x[0-9a-fA-F]{40}/);
    expect(proven?.trust).toContain(`verifier ${stack.contracts.provenL2Verifier}`);

    // An offchain parent has no L2 part: its card offers its setup, not a choice of resolver.
    expect((await setup('offchain.eth')).l2).toBeNull();
    await check('offchain.eth');
    await expectText(card('offchain.eth'), 'Ready: its subnames resolve through this platform');
    expect(await card('offchain.eth').locator('li.resolver-option').count()).toBe(0);
    await card(l2Parent).screenshot({ path: path.join(SCREENSHOTS, '13-l2-resolvers.png') });
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('switches l2.eth to the proven resolver through the wallet (a rejected deployment changes nothing); it still resolves', async () => {
    const name = stack.names.l2Parent ?? '';
    const signedResolver = await resolverOf(name);
    expect((await setup(name)).resolver).toBe(signedResolver);
    const held = `demo.${name}`;
    const address = await getEnsAddress(l1, { name: held, universalResolverAddress });
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const switchButton = option(name, 'proven').getByRole('button', { name: 'Switch to ProvenL2Resolver' });
    wallet.rejectNext = 'eth_sendTransaction';
    await switchButton.click();
    await expectText(card(name).locator('[role="alert"]'), 'Rejected in the wallet');
    expect(await resolverOf(name)).toBe(signedResolver);
    expect(await option(name, 'signed').getAttribute('aria-current')).toBe('true');

    await switchButton.click();
    await expectText(option(name, 'proven'), 'In use');
    expect(await card(name).locator('[role="alert"]').count()).toBe(0);
    // On chain: the registry names a new resolver, the one offchain-svc now finds to be its proven resolver.
    const provenResolver = await resolverOf(name);
    expect(provenResolver).not.toBe(signedResolver);
    const after = await setup(name);
    expect(after).toMatchObject({ resolver: provenResolver, ready: true });
    expect(after.l2?.options.map((o) => [o.kind, o.chosen])).toEqual([
      ['signed', false],
      ['proven', true],
    ]);
    expect(await option(name, 'signed').getAttribute('aria-current')).toBeNull();
    await expectText(card(name), provenResolver);
    // Its L2 name resolves as before, now through storage proofs of the L2 checked on L1. Strict, so a failed lookup
    // is an error; under load the prover may answer 503 (its L2 node slow), which a client retries.
    let answer: unknown;
    await until(
      async () => {
        answer = await getEnsAddress(l1, { name: held, universalResolverAddress, strict: true }).catch(
          (err: unknown) => err,
        );
        return answer === address;
      },
      `${held} resolving through proofs`,
      30_000,
    ).catch(() => {
      throw new Error(`${held} did not resolve to ${address} through proofs: ${String(answer)}`);
    });
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('sends no setResolver when the deployment landed elsewhere than announced (the account sent another transaction first)', async () => {
    const name = stack.names.provenL2Parent ?? '';
    const before = await resolverOf(name);
    const announced = (await setup(name)).l2?.options.find((o) => o.kind === 'signed')?.steps[0]
      ?.contractAddress;
    expect(announced).toMatch(/^0x[0-9a-fA-F]{40}$/);
    wallet.sendFirst = true;
    await option(name, 'signed').getByRole('button', { name: 'Switch to L2NameResolver' }).click();
    await expectText(card(name).locator('[role="alert"]'), `not at ${announced}`);
    expect(wallet.sendFirst).toBe(false);
    expect(await resolverOf(name)).toBe(before);
    expect((await setup(name)).l2?.options.map((o) => [o.kind, o.chosen])).toEqual([
      ['signed', false],
      ['proven', true],
    ]);
  }, 60_000);
});
