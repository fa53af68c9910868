/**
 * The console image in a real container engine, as operators run it (host network, read-only root filesystem, a
 * tmpfs /tmp, the image's non-root user): started without its variables it stops with one line; with them it
 * serves the page, `/config.json` with the services' URLs and the bundle under a Content-Security-Policy naming
 * them, refuses a POST, and exits 0 on SIGTERM. The page calls the services from the browser, so they need not run.
 * Part of `scripts/images-smoke.ts`; alone:
 *
 *   node -r esbuild-register scripts/console-image-smoke.ts <tag>
 */
import { freePort, until } from '@nrp/testkit';
import {
  checkBareRun,
  checkImage,
  checkSigterm,
  exitWithImageChecks,
  imageChecks,
  removeContainer,
  startContainer,
} from './docker';

export type ServiceUrls = Record<'metadata' | 'mint' | 'offchain' | 'resolver', string>;

/** The checks of the console image: one line each, and whether any failed. */
export async function smokeConsoleImage(
  image: string,
  services: ServiceUrls,
): Promise<{ lines: string[]; failed: boolean }> {
  const checks = imageChecks();
  const { check } = checks;
  await checkBareRun(checks, 'no variables', image, ['-e', 'PORT=0'], 'Invalid configuration: ');

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const name = 'nrp-smoke-console';
  const env = {
    PORT: String(port),
    NETWORK: 'sepolia',
    OFFCHAIN_URL: services.offchain,
    MINT_URL: services.mint,
    METADATA_URL: services.metadata,
    RESOLVER_URL: services.resolver,
  };
  await startContainer(name, image, env);
  try {
    await until(
      () =>
        fetch(url).then(
          (r) => r.ok,
          () => false,
        ),
      'the console answering',
      30_000,
    );
    await checkImage(checks, image, name);

    const page = await fetch(url);
    const html = await page.text();
    check(
      'GET /',
      page.status === 200 && html.includes('console.js'),
      `${page.status} ${page.headers.get('content-type')}, ${html.length} B`,
    );
    const config = (await (await fetch(`${url}/config.json`)).json()) as {
      network: string;
      services: ServiceUrls;
    };
    check(
      'config.json',
      config.network === 'sepolia' &&
        JSON.stringify(config.services) ===
          JSON.stringify({
            offchain: services.offchain,
            mint: services.mint,
            metadata: services.metadata,
            resolver: services.resolver,
          }),
      JSON.stringify(config).slice(0, 200),
    );
    const bundle = await fetch(`${url}/console.js`);
    const bytes = (await bundle.arrayBuffer()).byteLength;
    const csp = bundle.headers.get('content-security-policy') ?? '';
    check(
      'console.js',
      bundle.status === 200 && Object.values(services).every((s) => csp.includes(new URL(s).origin)),
      `${bundle.status}, ${(bytes / 1024).toFixed(1)} KB, CSP connect-src names the ${Object.keys(services).length} services`,
    );
    const post = await fetch(url, { method: 'POST' });
    check('POST /', post.status === 405, `${post.status} (allow: ${post.headers.get('allow')})`);
    await checkSigterm(checks, name);
  } finally {
    await removeContainer(name);
  }
  return checks;
}

if (require.main === module) {
  const tag = process.argv[2] ?? 'dev';
  const services = {
    metadata: 'http://127.0.0.1:3001',
    mint: 'http://127.0.0.1:3002',
    offchain: 'http://127.0.0.1:3003',
    resolver: 'http://127.0.0.1:3004',
  };
  exitWithImageChecks(`console (nrp/console:${tag}):`, smokeConsoleImage(`nrp/console:${tag}`, services));
}
