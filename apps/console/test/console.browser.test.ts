/**
 * The console in Debian's Chromium against `npm start` (one dev stack for the file), with a wallet the test
 * injects: an EIP-1193 provider whose signatures come from an anvil account's key in this process and whose other
 * requests go to anvil. It starts on the wrong chain (mainnet) and can be told to reject the next request.
 * Screenshots go to test-output/console/ (CONSOLE_SCREENSHOTS=1: to apps/console/docs/, as the README shows them).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { createMetadataClient, imageUrl } from '@nrp/client/metadata';
import { createMintClient } from '@nrp/client/mint';
import { createOffchainClient, sessionSignInMessage } from '@nrp/client/offchain';
import { privateKeyToAccount } from 'viem/accounts';
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import {
  deploySmartAccountFactory,
  smartAccountOf,
  smartAccountSignature,
  until,
  type DevStackFile,
} from '@nrp/testkit';
import { browserTestsCanRun } from '@nrp/testkit/src/browser';
import type { TestWallet } from './browser-wallet';
import { openConsoleInBrowser, SCREENSHOTS, type ConsoleInBrowser } from './console-in-browser';
import { expectText } from './page-text';

const browserAvailable = browserTestsCanRun('the console browser test');
const describeInBrowser = browserAvailable ? describe : describe.skip;

describeInBrowser('the console in Chromium, against npm start', () => {
  let browser: ConsoleInBrowser;
  let stack: DevStackFile;
  let page: Page;
  let wallet: TestWallet;
  let pageErrors: string[];
  /** The webhook receiver: answers 500 to its first request, then 200; keeps what it received. */
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(received.length === 1 ? 500 : 200).end();
    });
  });

  /** The whole page, or only `section` (the screen of one flow). */
  async function shot(name: string, section?: string): Promise<void> {
    const file = path.join(SCREENSHOTS, `${name}.png`);
    if (section) await page.locator(section).screenshot({ path: file });
    else await page.screenshot({ path: file, fullPage: true });
  }

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // The test's receiver may get webhooks.
    browser = await openConsoleInBrowser(() => ({ WEBHOOK_ALLOWED_ORIGINS: receiverOrigin }));
    ({ stack, page, wallet, pageErrors } = browser);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => receiver.close(resolve));
  }, 60_000);

  it('connects the wallet, says it is on the wrong chain and switches it, and signs in (a rejected signature first)', async () => {
    await page.goto(stack.console);
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    const status = page.locator('#wallet-status');
    await expectText(status, 'on chain 1: this console works on Sepolia (chain 11155111)');
    await shot('1-wrong-chain');
    await page.getByRole('button', { name: 'Switch to Sepolia' }).click();
    await expectText(status, `Connected as ${stack.accounts[0]?.address} on Sepolia.`);
    expect(wallet.chainId).toBe(stack.chains.sepolia.chainId);
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

  it('after sign-in lists every name of the wallet with no typing, each once with its sources, state and actions; no console error', async () => {
    const owner = stack.accounts[0];
    if (!owner) throw new Error('no account 0');
    // The wallet's names: demo.eth is its primary name, team.offchain.eth its offchain subname and demo.l2.eth its
    // name minted on the L2 (all from npm start); it mints owner.mint.eth on the L1 here and gets keys of
    // offchain.eth and demo.eth (through the API, as another tab of the console would).
    const mintSection = page.locator('#mint');
    await mintSection.getByLabel('Parent').fill('mint.eth');
    await mintSection.getByLabel('Label').fill('owner');
    await mintSection.getByRole('button', { name: 'Estimate' }).click();
    await page.getByRole('button', { name: /^Mint for/ }).click();
    await expectText(page.locator('#mint-progress'), 'owner.mint.eth is yours.');
    const offchain = createOffchainClient({ baseUrl: stack.services.offchain });
    const { nonce } = await offchain.requestSessionNonce(owner.address);
    const siweMessage = sessionSignInMessage({
      serviceUrl: stack.services.offchain,
      domain: new URL(stack.console).host,
      address: owner.address,
      nonce,
      network: 'sepolia',
    });
    const siweSignature = await privateKeyToAccount(owner.privateKey).signMessage({ message: siweMessage });
    const { token } = await offchain.signIn({ siweMessage, siweSignature, address: owner.address });
    for (const parentName of ['offchain.eth', 'demo.eth']) {
      await offchain.createKey({ parentName, network: 'sepolia', note: 'names test' }, token);
    }

    try {
      pageErrors.length = 0;
      await page.reload();
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expectText(page.locator('#wallet-status'), 'Signed in as');
      await expectText(
        page.locator('#names-discovery'),
        'Below: the names this platform found for this wallet.',
      );
      const card = (name: string) => page.locator(`#names-list li[data-name="${name}"]`);
      const expected: Array<[string, string, string, string[]]> = [
        [
          'demo.eth',
          'your primary name · parent of your API keys',
          'needs-setup',
          ['Send setup transactions', 'List for minting'],
        ],
        [
          'owner.mint.eth',
          'minted here on sepolia',
          'needs-setup',
          ['Send setup transactions', 'List for minting'],
        ],
        ['offchain.eth', 'parent of your API keys', 'ready', ['Manage subnames', 'List for minting']],
        ['demo.l2.eth', 'minted here on base-sepolia', 'l2', []],
        ['team.offchain.eth', 'offchain subname of offchain.eth', 'ready', ['Upload avatar']],
      ];
      for (const [name, sources, state, actions] of expected) {
        await expectText(card(name), `Found as ${sources}`);
        await until(
          async () => (await card(name).getAttribute('data-state')) === state,
          `${name} ${state}`,
          15_000,
        );
        expect(await card(name).getByRole('button').allTextContents()).toEqual(actions);
      }
      // Each name once (npm start may give the wallet more than these), its primary name first.
      const listed = await page
        .locator('#names-list li')
        .evaluateAll((items) => items.map((li) => li.dataset.name));
      expect(listed).toEqual(expect.arrayContaining(expected.map(([name]) => name)));
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed[0]).toBe('demo.eth');
      expect(await page.locator('#name-input').inputValue()).toBe('');
      await expectText(card('demo.l2.eth'), 'Held on base-sepolia');
      await shot('2-your-names', '#names');
      expect(pageErrors).toEqual([]);

      // What a card offers does what it says: the listing of demo.eth, and the avatar of team.offchain.eth.
      await card('demo.eth').getByRole('button', { name: 'List for minting' }).click();
      await expectText(page.locator('#listing-state'), 'demo.eth has no listing yet');
      await card('team.offchain.eth').getByRole('button', { name: 'Upload avatar' }).click();
      await expectText(page.locator('#workspace-status'), 'Working on offchain.eth');
      expect(await page.locator('#image-label').inputValue()).toBe('team');
    } finally {
      // The keys made here and by _Upload avatar_: the key tests below count from none.
      for (const key of await offchain.listKeys(token)) await offchain.revokeKey(key.id, token);
    }

    // Every answer of the console's server carries its CSP, the 404s and /config.json too.
    for (const pathname of ['/config.json', '/missing.js']) {
      const response = await fetch(`${stack.console}${pathname}`);
      expect(response.headers.get('content-security-policy')).toMatch(
        /^default-src 'self'; connect-src 'self' /,
      );
    }
  }, 120_000);

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
    const resolverRoute = `${stack.services.resolver}/**`;
    await page.route(resolverRoute, (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.locator('#names-discovery [role="alert"]'), 'Service unreachable');
    await expectText(page.locator('li[data-name="offchain.eth"]'), 'Ready');
    await page.unroute(resolverRoute);

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

  it('subnames: opens a parent with a key made for the page, lists and searches, creates, edits, refuses bad input, deletes', async () => {
    const offchain = createOffchainClient({ baseUrl: stack.services.offchain });
    const section = page.locator('#subnames');
    await page.getByLabel('Open parent').fill('offchain.eth');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expectText(page.locator('#workspace-status'), 'Working on offchain.eth');
    await expectText(page.locator('#subnames-state'), 'subname(s) of offchain.eth');
    await expectText(section.locator('#subnames-table'), 'alice.offchain.eth');

    await section.getByLabel('Label contains').fill('ali');
    await section.getByRole('button', { name: 'Search' }).click();
    await until(
      async () => (await section.locator('#subnames-table tbody tr').count()) === 1,
      'one match',
      15_000,
    );
    await expectText(section.locator('#subnames-table tbody tr'), 'alice.offchain.eth');

    const owner = wallet.address;
    await page.locator('#subname-label').fill('console-made');
    await page.locator('#subname-owner').fill(owner);
    await page
      .locator('#subname-texts')
      .fill('url=https://example.com/made\ndescription=Made in the console');
    await page.locator('#subname-addresses').fill(`eth=${owner}\nbase=${owner}\nbtc=nonsense`);
    await page.getByRole('button', { name: 'Save subname' }).click();
    const editorState = page.locator('#subname-editor-state');
    await expectText(editorState, '(400)');
    await expectText(editorState, 'addresses.2');
    await expect(offchain.getSubname('console-made.offchain.eth')).rejects.toMatchObject({ status: 404 });

    await page.locator('#subname-addresses').fill(`eth=${owner}\nbase=${owner}`);
    await page
      .locator('#subname-contenthash')
      .fill('ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi');
    await page.getByRole('button', { name: 'Save subname' }).click();
    // Read back through wagmi's own sepolia chain: the Universal Resolver at Sepolia's address, then CCIP-Read.
    await expectText(editorState, `Saved console-made.offchain.eth. On Sepolia it resolves to ${owner}.`);
    const made = await offchain.getSubname('console-made.offchain.eth');
    expect(made.texts).toEqual({ url: 'https://example.com/made', description: 'Made in the console' });
    expect(made.addresses).toEqual({ '60': owner, '2147492101': owner });
    expect(made.contenthash).toMatch(/^ipfs:\/\//);

    await section.getByLabel('Label contains').fill('');
    await section.getByRole('button', { name: 'Search' }).click();
    const row = section.locator('tr[data-subname="console-made.offchain.eth"]');
    await row.getByRole('button', { name: 'Edit console-made.offchain.eth' }).click();
    expect(await page.locator('#subname-addresses').inputValue()).toBe(`eth=${owner}\nbase=${owner}`);
    await page.locator('#subname-texts').fill('url=https://example.com/edited');
    await shot('5-subnames', '#subnames');
    await page.getByRole('button', { name: 'Save subname' }).click();
    await expectText(editorState, 'Saved console-made.offchain.eth.');
    expect((await offchain.getSubname('console-made.offchain.eth')).texts).toEqual({
      url: 'https://example.com/edited',
    });

    const bob = section.locator('tr[data-subname="bob.offchain.eth"]');
    await bob.getByRole('button', { name: 'Delete bob.offchain.eth' }).click();
    await bob.getByRole('button', { name: 'Confirm delete of bob.offchain.eth' }).click();
    await expectText(page.locator('#subnames-state'), 'Deleted bob.offchain.eth.');
    await expect(offchain.getSubname('bob.offchain.eth')).rejects.toMatchObject({ status: 404 });
  }, 90_000);

  it('bulk import: bad rows named by line, all or nothing or row by row as chosen; export downloads every subname', async () => {
    const offchain = createOffchainClient({ baseUrl: stack.services.offchain });
    const csv = [
      'label,text.url,addr.eth',
      `bulk-one,https://example.com/1,${wallet.address}`,
      'bulk-two,https://example.com/2,0xnot-an-address',
      '"bulk-three","https://example.com/3, with a comma",',
    ].join('\n');
    const file = { name: 'subnames.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) };
    await page.setInputFiles('#import-file', file);
    expect(await page.locator('#import-atomic').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const results = page.locator('#import-results');
    await expectText(results, '1 row(s) failed.');
    await expectText(results.locator('tr[data-line="3"]'), 'addresses.0');
    await expectText(results.locator('tr[data-line="2"]'), 'Not written');
    await expectText(page.locator('#import-progress'), '0 of 3 row(s) written (all or nothing).');
    await expect(offchain.getSubname('bulk-one.offchain.eth')).rejects.toMatchObject({ status: 404 });

    await page.locator('#import-atomic').uncheck();
    const rowByRow = [
      'label,text.url,addr.eth,addr.nochain',
      ...csv
        .split('\n')
        .slice(1)
        .map((line) => `${line},`),
      'bulk-four,,,somewhere',
      ',https://example.com/no-label,,',
    ].join('\n');
    await page.setInputFiles('#import-file', { ...file, buffer: Buffer.from(rowByRow) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expectText(page.locator('#import-progress'), '2 of 5 row(s) written.');
    await expectText(results.locator('tr[data-line="3"]'), 'addresses.0');
    await expectText(results.locator('tr[data-line="2"]'), 'Created bulk-one.offchain.eth');
    await expectText(results.locator('tr[data-line="4"]'), 'Created bulk-three.offchain.eth');
    await expectText(results.locator('tr[data-line="5"]'), 'Not sent: unknown chain "nochain"');
    await expectText(results.locator('tr[data-line="6"]'), 'Not sent: no label');
    await shot('6-import', '#bulk');
    expect((await offchain.getSubname('bulk-three.offchain.eth')).texts.url).toBe(
      'https://example.com/3, with a comma',
    );
    await expect(offchain.getSubname('bulk-two.offchain.eth')).rejects.toMatchObject({ status: 404 });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export (NDJSON)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('offchain.eth-subnames.ndjson');
    const exported = path.join(browser.workDir, 'export.ndjson');
    await download.saveAs(exported);
    const labels = readFileSync(exported, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { label: string }).label);
    expect(labels).toEqual(expect.arrayContaining(['alice', 'console-made', 'bulk-one', 'bulk-three']));
    expect(labels).not.toContain('bob');
    await expectText(
      page.locator('#import-progress'),
      `Exported ${labels.length} subname(s) of offchain.eth.`,
    );
  }, 90_000);

  it('images: a refused signature uploads nothing; an upload is pending until the record points at it, then shown', async () => {
    const metadata = createMetadataClient({ baseUrl: stack.services.metadata });
    const target = { network: 'sepolia' as const, subname: 'console-made.offchain.eth' };
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="192" height="192">
      <defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="#1f5fd1"/><stop offset="1" stop-color="#17663a"/></linearGradient></defs>
      <rect width="192" height="192" fill="url(#g)"/><circle cx="96" cy="80" r="36" fill="#fff" opacity=".9"/>
      <rect x="44" y="124" width="104" height="52" rx="26" fill="#fff" opacity=".9"/></svg>`;
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const section = page.locator('#images');
    await section.getByLabel('Subname label').fill('console-made');
    await page.setInputFiles('#image-file', { name: 'avatar.png', mimeType: 'image/png', buffer: png });

    wallet.rejectNext = 'personal_sign';
    await section.getByRole('button', { name: 'Upload' }).click();
    await expectText(page.locator('#image-errors'), 'Rejected in the wallet');
    expect(await page.locator('#image-progress').textContent()).toBe('');
    await expect(metadata.getImage(target, 'avatar')).rejects.toMatchObject({ status: 404 });

    for (const kind of ['avatar', 'header'] as const) {
      await page.locator('#image-kind').selectOption(kind);
      await page.setInputFiles('#image-file', { name: `${kind}.png`, mimeType: 'image/png', buffer: png });
      await section.getByRole('button', { name: 'Upload' }).click();
      await expectText(page.locator('#image-progress'), 'Pending');
      await expect(metadata.getImage(target, kind)).rejects.toMatchObject({ status: 404 });
      if (kind === 'avatar') await shot('7-image-pending', '#images');
      await section.getByRole('button', { name: `Set the ${kind} record` }).click();
      await expectText(page.locator('#image-progress'), `The ${kind} of console-made.offchain.eth is shown.`);
      const image = page.locator(`#image-shown img.${kind}`);
      await until(
        async () => (await image.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0,
        `the ${kind} loaded`,
        15_000,
      );
      expect((await metadata.getImage(target, kind)).contentType).toMatch(/^image\//);
      if (kind === 'avatar') await shot('7-image-shown', '#images');
    }
    const texts = (
      await createOffchainClient({ baseUrl: stack.services.offchain }).getSubname(target.subname)
    ).texts;
    expect(texts).toMatchObject({
      avatar: imageUrl(stack.services.metadata, target, 'avatar'),
      header: imageUrl(stack.services.metadata, target, 'header'),
      url: 'https://example.com/edited',
    });
  }, 90_000);

  it('webhooks: a refused URL in words; registers one, sees its failed delivery and redelivers it', async () => {
    const section = page.locator('#webhooks');
    await section.getByLabel('Receiver URL').fill('https://127.0.0.1/hook');
    await section.getByRole('button', { name: 'Register webhook' }).click();
    await expectText(page.locator('#webhook-errors'), '(400)');

    const port = (receiver.address() as AddressInfo).port;
    await section.getByLabel('Receiver URL').fill(`http://127.0.0.1:${port}/hook`);
    await section.getByRole('button', { name: 'Register webhook' }).click();
    await expectText(page.locator('#webhook-secret'), 'whsec_');
    await expectText(page.locator('#webhooks-state'), '1 webhook(s).');

    await page.locator('#subname-label').fill('hooked');
    await page.getByRole('button', { name: 'Save subname' }).click();
    await expectText(page.locator('#subname-editor-state'), 'Saved hooked.offchain.eth.');
    await until(async () => received.length === 1, 'the first delivery attempt', 20_000);

    await section.getByRole('button', { name: /^Deliveries of/ }).click();
    const delivery = page.locator('#deliveries-table tbody tr').first();
    await expectText(delivery, 'HTTP 500');
    expect(await delivery.getAttribute('data-status')).toBe('pending');
    await delivery.getByRole('button', { name: /^Redeliver subname.created/ }).click();
    await until(
      async () => {
        await page.locator('#refresh-deliveries').click();
        return (await delivery.getAttribute('data-status')) === 'delivered';
      },
      'the redelivery delivered',
      20_000,
    );
    await expectText(delivery, 'HTTP 200');
    expect(JSON.parse(received[1] ?? '{}')).toMatchObject({
      type: 'subname.created',
      data: expect.objectContaining({ fullName: 'hooked.offchain.eth' }),
    });
    await shot('8-webhooks', '#webhooks');
  }, 90_000);

  it('listing: the owner edits the listing of mint.eth with a signature (a refused one changes nothing)', async () => {
    const mint = createMintClient({ baseUrl: stack.services.mint });
    const section = page.locator('#listing');
    await section.getByLabel('Parent to list').fill('mint.eth');
    await section.getByRole('button', { name: 'Load listing' }).click();
    await expectText(page.locator('#listing-state'), 'mint.eth is listed (by the operator');
    expect(await page.locator('#listing-price').inputValue()).toBe('0.001');

    await page.locator('#listing-price').fill('0.002');
    await page.locator('#listing-reserved').fill('admin, www');
    wallet.rejectNext = 'personal_sign';
    await section.getByRole('button', { name: 'Sign and save listing' }).click();
    await expectText(page.locator('#listing-errors'), 'Rejected in the wallet');
    expect(await mint.getListing('sepolia', 'mint.eth')).toMatchObject({
      source: 'file',
      basePriceWei: '1000000000000000',
    });

    await page.locator('#listing-price').fill('two');
    await section.getByRole('button', { name: 'Sign and save listing' }).click();
    await expectText(page.locator('#listing-errors'), 'Nothing sent');
    await page.locator('#listing-price').fill('0.002');
    await section.getByRole('button', { name: 'Sign and save listing' }).click();
    await expectText(page.locator('#listing-state'), 'Listing of mint.eth saved: 0.002 ETH a year.');
    expect(await mint.getListing('sepolia', 'mint.eth')).toMatchObject({
      source: 'api',
      basePriceWei: '2000000000000000',
      reservedLabels: ['admin', 'www'],
      listedBy: wallet.address,
    });
    await shot('9-listing', '#listing');
  }, 60_000);

  it('mint: a visitor (another account) estimates, is refused a reserved label, refuses the transaction, then mints', async () => {
    const mint = createMintClient({ baseUrl: stack.services.mint });
    await wallet.switchAccount(page, 1);
    const visitor = wallet.address;
    await expectText(page.locator('#wallet-status'), `Connected as ${visitor}`);
    expect(await page.locator('#workspace').isHidden()).toBe(true);
    const section = page.locator('#mint');
    await section.getByLabel('Parent').fill('mint.eth');
    await section.getByLabel('Label').fill('admin');
    await section.getByRole('button', { name: 'Estimate' }).click();
    await expectText(page.locator('#mint-quote [role="alert"]'), 'Cannot be minted: SUBNAME_RESERVED');

    // mint-svc down: its failure in words, the rest of the page works.
    const mintRoute = `${stack.services.mint}/**`;
    await page.route(mintRoute, (route) => route.abort('connectionrefused'));
    await section.getByLabel('Label').fill('visitor');
    await section.getByRole('button', { name: 'Estimate' }).click();
    await expectText(page.locator('#mint-errors [role="alert"]'), 'Service unreachable');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.locator('#wallet-status'), `Signed in as ${visitor}`);
    await page.unroute(mintRoute);

    await section.getByRole('button', { name: 'Estimate' }).click();
    await expectText(page.locator('#mint-quote'), '0.002 ETH');
    await shot('10-mint-estimate', '#mint');
    wallet.rejectNext = 'eth_sendTransaction';
    await page.getByRole('button', { name: /^Mint for/ }).click();
    await expectText(page.locator('#mint-errors [role="alert"]'), 'Rejected in the wallet');
    expect((await mint.listNames({ network: 'sepolia', owner: visitor })).items).toEqual([]);

    await page.getByRole('button', { name: /^Mint for/ }).click();
    await expectText(page.locator('#mint-progress'), 'visitor.mint.eth is yours.');
    await expectText(page.locator('#minted-names'), 'visitor.mint.eth');
    expect((await mint.listNames({ network: 'sepolia', owner: visitor })).items).toMatchObject([
      { name: 'visitor.mint.eth', owner: visitor },
    ]);
    await shot('11-minted', '#mint');

    await wallet.switchAccount(page, 0);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.locator('#wallet-status'), `Signed in as ${wallet.address}`);
  }, 90_000);

  it('works at phone width and by keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#name-input').focus();
    await page.keyboard.type('offchain.eth');
    await page.keyboard.press('Enter');
    await expectText(page.locator('li[data-name="offchain.eth"]'), 'Ready');
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await shot('4-phone');

    // The parent's sections, by keyboard only: Tab from the parent field to the key field to Open.
    await page.locator('#workspace-parent').fill('');
    await page.locator('#workspace-parent').focus();
    await page.keyboard.type('offchain.eth');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expectText(page.locator('#subnames-state'), 'subname(s) of offchain.eth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await shot('12-phone-subnames', '#subnames');
  }, 45_000);

  it('a smart account not yet deployed signs in with its factory call around the signature (ERC-6492)', async () => {
    const provider = new JsonRpcProvider(stack.chains.sepolia.rpcUrl, undefined, { staticNetwork: true });
    try {
      const deployer = new NonceManager(new Wallet(stack.accounts[2]?.privateKey ?? '', provider));
      const factory = await deploySmartAccountFactory(deployer);
      const account = await smartAccountOf(deployer, factory, new Wallet(Wallet.createRandom().privateKey));
      expect(await provider.getCode(account.address)).toBe('0x');
      await wallet.useAccount(page, {
        address: account.address as `0x${string}`,
        signMessage: (message) => smartAccountSignature(account, message, true),
      });
      await expectText(page.locator('#wallet-status'), `Connected as ${account.address}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expectText(page.locator('#wallet-status'), `Signed in as ${account.address}`);
      await expectText(page.locator('#names-discovery'), 'This platform knows no names of this wallet yet');
      // Signing in deployed nothing: the service checked the signature as the account would once deployed.
      expect(await provider.getCode(account.address)).toBe('0x');
    } finally {
      provider.destroy();
      await wallet.switchAccount(page, 0);
    }
  }, 60_000);
});
