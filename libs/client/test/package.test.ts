/**
 * The client as a frontend team gets it: built, packed (`npm pack`) and installed from the tarball into a fresh
 * project outside the workspace; run from plain Node ESM and CommonJS and type-checked from TypeScript, against
 * the dev stack (`npm start`) started with a page's origin in SIWE_DOMAINS and CORS_ORIGINS. Then the whole
 * sign-in-and-upload flow in Debian's Chromium, from a page on another origin bundled with the packed client;
 * the record is set through offchain-svc's Swagger UI ("Try it out" with the API key). Screenshots of the steps go
 * to test-output/client-browser/.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { createOffchainClient } from '@nrp/client';
import { freePort, startDevStackProcess, type DevStackFile, type DevStackProcess } from '@nrp/testkit';
import { browserTestsCanRun, launchChromium } from '@nrp/testkit/src/browser';
import { buildClientPackage } from '../scripts/build';

const exec = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const screenshots = path.join(root, 'test-output/client-browser');
const browserAvailable = browserTestsCanRun('the browser flow test');
const browserIt = browserAvailable ? it : it.skip;

/** npm as a user runs it: none of the workspace's npm_* variables of the `npm test` running this file. */
const userEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
);

const ESM_CONSUMER = `
import { createOffchainClient, ServiceError } from '@nrp/client/offchain';
import { offchainResponseSchemas } from '@nrp/client/offchain/schemas';
import { createResolverClient } from '@nrp/client/resolver';
const [offchainUrl, resolverUrl, key, label] = process.argv.slice(2);
const offchain = createOffchainClient({ baseUrl: offchainUrl, responseSchemas: offchainResponseSchemas });
const created = await offchain.createOrUpdateSubname(
  { parentName: 'offchain.eth', label, texts: [{ key: 'url', value: 'https://' + label + '.example' }] },
  key,
);
const profile = await createResolverClient({ baseUrl: resolverUrl }).getProfile(created.fullName, { texts: ['url'] });
const missing = await offchain.getSubname('nobody.offchain.eth').catch((err) => err);
console.log(JSON.stringify({
  created: created.fullName,
  url: profile.texts.find((t) => t.key === 'url').value,
  missing: { isServiceError: missing instanceof ServiceError, status: missing.status, code: missing.code },
}));
`;

const CJS_CONSUMER = `
const { createOffchainClient, ServiceError } = require('@nrp/client/offchain');
const { createResolverClient } = require('@nrp/client/resolver');
const [offchainUrl, resolverUrl, key, label] = process.argv.slice(2);
(async () => {
  const offchain = createOffchainClient({ baseUrl: offchainUrl });
  const created = await offchain.createOrUpdateSubname(
    { parentName: 'offchain.eth', label, texts: [{ key: 'url', value: 'https://' + label + '.example' }] },
    key,
  );
  const profile = await createResolverClient({ baseUrl: resolverUrl }).getProfile(created.fullName, { texts: ['url'] });
  const missing = await offchain.getSubname('nobody.offchain.eth').catch((err) => err);
  console.log(JSON.stringify({
    created: created.fullName,
    url: profile.texts.find((t) => t.key === 'url').value,
    missing: { isServiceError: missing instanceof ServiceError, status: missing.status, code: missing.code },
  }));
})();
`;

const TS_CONSUMER = `
import { createMetadataClient, imageSignInMessage, ServiceError, type AvatarUploadResult } from '@nrp/client/metadata';
import { createResolverClient, type Profile } from '@nrp/client/resolver';
import { resolverResponseSchemas } from '@nrp/client/resolver/schemas';

const resolver = createResolverClient({ baseUrl: 'http://localhost:3004', responseSchemas: resolverResponseSchemas });

export async function avatarOf(name: string): Promise<string | undefined> {
  const profile: Profile = await resolver.getProfile(name, { texts: ['avatar'] });
  return profile.texts.find((text) => text.key === 'avatar')?.value;
}

export function uploadMessage(nonce: string, address: string): string {
  return imageSignInMessage({
    serviceUrl: 'https://metadata.example',
    domain: 'app.example',
    address,
    nonce,
    network: 'sepolia',
    subname: 'alice.offchain.eth',
    kind: 'avatar',
    operation: 'upload',
  });
}

export const describeFailure = (err: unknown): string =>
  err instanceof ServiceError ? err.status + ' ' + err.code + ' ' + err.errors.length : 'not a service answer';
export const isPending = (result: AvatarUploadResult): boolean => result.pending === true;

// @ts-expect-error only mainnet and sepolia are networks
export const wrongNetwork = createMetadataClient({ baseUrl: '' }).getImage({ network: 'goerli', subname: 'a.eth' }, 'avatar');
// @ts-expect-error a profile's name is a string
export const wrongType: number = ({} as Profile).name;
`;

const CTS_CONSUMER = `
import { createOffchainClient, ServiceError } from '@nrp/client/offchain';
export const client = createOffchainClient({ baseUrl: 'http://localhost:3003' });
export const isProblem = (err: unknown): boolean => err instanceof ServiceError;
`;

describe('@nrp/client from its tarball, against the dev stack', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'nrp-client-package-'));
  const consumer = path.join(work, 'consumer');
  let devStack: DevStackProcess | undefined;
  let stack: DevStackFile;
  let pagePort: number;
  let pageOrigin: string;

  async function installPackedClient(): Promise<void> {
    const dist = path.join(work, 'dist');
    await buildClientPackage(dist);
    const { stdout } = await exec('npm', ['pack', '--pack-destination', work], { cwd: dist, env: userEnv });
    const tarball = path.join(work, stdout.trim().split('\n').at(-1) ?? '');
    mkdirSync(consumer);
    writeFileSync(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const viemRange = (
      JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies.viem;
    await exec(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
        tarball,
        `viem@${viemRange}`,
      ],
      { cwd: consumer, env: userEnv, timeout: 240_000 },
    );
  }

  async function startDevStack(): Promise<void> {
    // What a frontend team sets for its page: its own domain for sign-in, its origin for CORS.
    devStack = await startDevStackProcess(() => ({
      SIWE_DOMAINS: `localhost:${pagePort}`,
      CORS_ORIGINS: pageOrigin,
    }));
    stack = devStack.stack;
  }

  beforeAll(async () => {
    pagePort = await freePort();
    pageOrigin = `http://localhost:${pagePort}`;
    await Promise.all([installPackedClient(), startDevStack()]);
  }, 300_000);

  afterAll(async () => {
    await devStack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('the package has ESM, CommonJS and declarations per service, and no Node built-in in its modules', () => {
    const installed = path.join(consumer, 'node_modules/@nrp/client');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      exports: Record<
        string,
        { import: { types: string; default: string }; require: { types: string; default: string } }
      >;
      sideEffects: boolean;
    };
    expect(manifest.sideEffects).toBe(false);
    for (const entry of ['.', './metadata', './mint', './offchain', './resolver', './resolver/schemas']) {
      const { import: esm, require: cjs } = manifest.exports[entry] ?? {
        import: undefined,
        require: undefined,
      };
      for (const file of [esm?.types, esm?.default, cjs?.types, cjs?.default]) {
        expect(file && existsSync(path.join(installed, file))).toBe(true);
      }
    }
    for (const module of ['http', 'metadata', 'sign-in-message', 'schemas/offchain', 'internal/ens/index']) {
      const source = readFileSync(path.join(installed, `esm/${module}.js`), 'utf8');
      expect(source).not.toMatch(/from "node:|\bBuffer\b|\bprocess\./);
    }
  });

  it('runs from plain Node ESM and CommonJS against the running services', async () => {
    const args = [stack.services.offchain, stack.services.resolver, stack.offchainApiKey];
    writeFileSync(path.join(consumer, 'esm.mjs'), ESM_CONSUMER);
    writeFileSync(path.join(consumer, 'cjs.cjs'), CJS_CONSUMER);
    for (const [script, label] of [
      ['esm.mjs', 'esm'],
      ['cjs.cjs', 'cjs'],
    ] as const) {
      const { stdout } = await exec(process.execPath, [script, ...args, label], { cwd: consumer });
      expect(JSON.parse(stdout)).toEqual({
        created: `${label}.offchain.eth`,
        url: `https://${label}.example`,
        missing: { isServiceError: true, status: 404, code: 'SUBNAME_NOT_FOUND' },
      });
    }
  });

  it('type-checks a TypeScript consumer (ESM and CommonJS) with the declarations it ships', async () => {
    writeFileSync(path.join(consumer, 'consumer.ts'), TS_CONSUMER);
    writeFileSync(path.join(consumer, 'consumer.cts'), CTS_CONSUMER);
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: [],
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts', 'consumer.cts'],
      }),
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const result = await exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer }).catch(
      (err: { stdout: string }) => ({ stdout: err.stdout }),
    );
    expect(result.stdout).toBe('');
  });

  it('npm start passed CORS_ORIGINS on: the page origin is allowed, by name', async () => {
    for (const url of Object.values(stack.services)) {
      const res = await fetch(`${url}/health`, { headers: { origin: pageOrigin } });
      expect(res.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    }
  });

  describe('in Chromium, a page on another origin', () => {
    let context: BrowserContext;
    let pageServer: Server;
    const subname = 'page.offchain.eth';

    beforeAll(async () => {
      if (!browserAvailable) return;
      rmSync(screenshots, { recursive: true, force: true });
      mkdirSync(screenshots, { recursive: true });
      cpSync(path.join(__dirname, 'browser/page.js'), path.join(consumer, 'page.js'));
      // Resolved from the consumer's node_modules: the packed client, for the browser (no Node built-ins).
      const bundle = await build({
        entryPoints: [path.join(consumer, 'page.js')],
        absWorkingDir: consumer,
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'chrome120',
        write: false,
        logLevel: 'silent',
      });
      const files: Record<string, { type: string; body: Buffer | string }> = {
        '/': { type: 'text/html', body: readFileSync(path.join(__dirname, 'browser/index.html')) },
        '/page.js': { type: 'text/javascript', body: bundle.outputFiles[0]?.text ?? '' },
        '/avatar.png': {
          type: 'image/png',
          body: await sharp({
            create: { width: 96, height: 96, channels: 3, background: { r: 40, g: 110, b: 220 } },
          })
            .png()
            .toBuffer(),
        },
      };
      pageServer = createServer((req, res) => {
        const file = files[(req.url ?? '/').split('?')[0] ?? '/'];
        if (!file) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': file.type }).end(file.body);
      });
      await new Promise<void>((resolve) => pageServer.listen(pagePort, '127.0.0.1', resolve));
      context = await launchChromium(mkdtempSync(path.join(work, 'chromium-profile-')), {
        width: 900,
        height: 700,
      });
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      if (pageServer) await new Promise((resolve) => pageServer.close(resolve));
    });

    async function shot(page: Page, name: string): Promise<void> {
      await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
    }

    /** offchain-svc's Swagger UI: authorise with the API key, then "Try it out" on createOrUpdateSubname. */
    async function setRecordsInSwaggerUi(body: object): Promise<number> {
      const docs = await context.newPage();
      await docs.goto(`${stack.services.offchain}/docs/`);
      await docs.locator('.auth-wrapper button.authorize').click();
      // the dialog lists every scheme of the document: use the API key's (x-auth-token)
      const apiKeyScheme = docs.locator('.auth-container').filter({ has: docs.locator('#api_key_value') });
      await apiKeyScheme.locator('#api_key_value').fill(stack.offchainApiKey);
      await apiKeyScheme.locator('button.authorize').click();
      await docs.locator('button.btn-done').first().click();
      const operation = docs.locator('#operations-subnames-createOrUpdateSubname');
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.try-out__btn').click();
      await operation.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
      await docs.screenshot({ path: path.join(screenshots, '03-swagger-ui-try-it-out.png') });
      const code = Number(/\d{3}/.exec((await status.textContent()) ?? '')?.[0]);
      await docs.close();
      return code;
    }

    browserIt(
      'gets a nonce, signs in for its own domain, uploads, waits, shows the profile with the avatar, deletes',
      async () => {
        const page = await context.newPage();
        const metadata = stack.services.metadata;
        await page.goto(
          `${pageOrigin}/?metadata=${encodeURIComponent(metadata)}&resolver=${encodeURIComponent(stack.services.resolver)}&subname=${subname}`,
        );
        const address = (await page.locator('#address').textContent()) ?? '';
        expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
        await createOffchainClient({ baseUrl: stack.services.offchain }).createOrUpdateSubname(
          { parentName: 'offchain.eth', label: 'page', owner: address },
          stack.offchainApiKey,
        );
        await shot(page, '01-ready');

        await page.locator('#upload').click();
        const state = page.locator('#status');
        await page.waitForSelector('#status[data-state="pending"]', { timeout: 30_000 });
        await shot(page, '02-pending');
        const avatarUrl = `${metadata}/profile/sepolia/${subname}/avatar`;
        expect(await page.locator('#record').textContent()).toBe(avatarUrl);

        const answered = await setRecordsInSwaggerUi({
          parentName: 'offchain.eth',
          label: 'page',
          owner: address,
          texts: [
            { key: 'name', value: 'Page (offchain)' },
            { key: 'avatar', value: avatarUrl },
          ],
        });
        expect(answered).toBe(200);

        await page
          .waitForSelector('#status[data-state="profile"]', { timeout: 90_000 })
          .catch(async (err) => {
            throw new Error(`${String(err)}; the page says: ${await state.textContent()}`);
          });
        const loaded = await page.locator('#avatar').evaluate((img: HTMLImageElement) => ({
          src: img.src,
          width: img.naturalWidth,
        }));
        expect(loaded).toEqual({ src: avatarUrl, width: 96 });
        await shot(page, '04-profile-with-avatar');

        await page.locator('#delete').click();
        await page.waitForSelector('#status[data-state="deleted"], #status[data-state="error"]');
        expect(await state.getAttribute('data-state')).toBe('deleted');
        await shot(page, '05-deleted');
        expect((await fetch(avatarUrl)).status).toBe(404);
      },
      180_000,
    );
  });
});
