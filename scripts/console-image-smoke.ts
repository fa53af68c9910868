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
import { docker, dockerRun, removeContainer, startContainer } from './docker';

export type ServiceUrls = Record<'metadata' | 'mint' | 'offchain' | 'resolver', string>;

/** The checks of the console image: one line each, and whether any failed. */
export async function smokeConsoleImage(
  image: string,
  services: ServiceUrls,
): Promise<{ lines: string[]; failed: boolean }> {
  const lines: string[] = [];
  let failed = false;
  const check = (what: string, ok: boolean, detail: string) => {
    lines.push(`  ${what.padEnd(14)} ${ok ? '' : 'FAILED: '}${detail}`);
    if (!ok) failed = true;
  };
  const baseSize = Number(await docker('image', 'inspect', '-f', '{{.Size}}', 'node:24-bookworm-slim'));
  const size = Number(await docker('image', 'inspect', '-f', '{{.Size}}', image));

  const bare = await dockerRun(['--rm', '--network', 'host', '--read-only', '-e', 'PORT=0', image]);
  const bareLines = bare.stderr.trim().split('\n').filter(Boolean);
  check(
    'no variables',
    bare.code === 1 && bareLines.length === 1 && Boolean(bareLines[0]?.startsWith('Invalid configuration: ')),
    `exit ${bare.code}: ${bareLines.join(' | ').slice(0, 200)}`,
  );

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
    const uid = await docker('exec', name, 'id', '-u');
    const readOnly = await docker('inspect', '-f', '{{.HostConfig.ReadonlyRootfs}}', name);
    check(
      'image',
      uid !== '0' && readOnly === 'true',
      `${((size - baseSize) / 1e6).toFixed(1)} MB above base, uid ${uid}, read-only ${readOnly}`,
    );

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
    await docker('kill', '--signal', 'TERM', name);
    const code = await docker('wait', name);
    check('SIGTERM', code === '0', `exit ${code}`);
  } finally {
    await removeContainer(name);
  }
  return { lines, failed };
}

if (require.main === module) {
  const tag = process.argv[2] ?? 'dev';
  const services = {
    metadata: 'http://127.0.0.1:3001',
    mint: 'http://127.0.0.1:3002',
    offchain: 'http://127.0.0.1:3003',
    resolver: 'http://127.0.0.1:3004',
  };
  smokeConsoleImage(`nrp/console:${tag}`, services).then(
    ({ lines, failed }) => {
      console.log([`console (nrp/console:${tag}):`, ...lines].join('\n'));
      process.exit(failed ? 1 : 0);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
