/**
 * `npm run bench:client-size`: what one service's client costs a page. Builds the package as published, bundles
 * what a page imports from each entry for the browser with esbuild (minified, tree-shaken) and prints one table of
 * minified and gzipped bytes: the client alone (responses typed, not checked) and with its opt-in response
 * schemas (zod and the ENS helpers they use). Goal: one service's client at most 25 KB gzipped. Last line: the
 * console's initial JS (apps/console, as `nx build console` builds it), goal at most 200 KB gzipped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildConsolePage } from '../apps/console/scripts/build';
import { buildClientPackage } from '../libs/client/scripts/build';
import { markdownTable } from './table';

const GOAL_GZIPPED = 25 * 1024;
const CONSOLE_GOAL_GZIPPED = 200 * 1024;

const cases: Array<{ name: string; code: string }> = [
  {
    name: 'metadata client + sign-in message',
    code: `import { createMetadataClient, imageSignInMessage } from '@nrp/client/metadata';
      export { createMetadataClient, imageSignInMessage };`,
  },
  { name: 'mint client', code: `export { createMintClient } from '@nrp/client/mint';` },
  { name: 'offchain client', code: `export { createOffchainClient } from '@nrp/client/offchain';` },
  { name: 'resolver client', code: `export { createResolverClient } from '@nrp/client/resolver';` },
  ...(['metadata', 'mint', 'offchain', 'resolver'] as const).map((service) => ({
    name: `${service} client + response schemas`,
    code: `export * from '@nrp/client/${service}'; export { ${service}ResponseSchemas } from '@nrp/client/${service}/schemas';`,
  })),
];

function row(name: string, bytes: Uint8Array, goal: number): string[] {
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  return [
    name,
    (bytes.length / 1024).toFixed(1),
    (gzipped / 1024).toFixed(1),
    String(goal / 1024),
    gzipped <= goal ? 'yes' : 'no',
  ];
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'client-size-'));
  try {
    const dist = path.join(work, 'node_modules/@nrp/client');
    await buildClientPackage(dist);
    const rows: string[][] = [];
    for (const { name, code } of cases) {
      const result = await build({
        stdin: { contents: code, resolveDir: work, loader: 'js' },
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        write: false,
        // The package's own dependencies (zod, …) as the workspace has them installed.
        nodePaths: [path.resolve(__dirname, '../node_modules')],
        logLevel: 'error',
      });
      rows.push(row(name, result.outputFiles[0]?.contents ?? new Uint8Array(), GOAL_GZIPPED));
    }
    const consoleDir = path.join(work, 'console');
    await buildConsolePage(consoleDir);
    rows.push(
      row(
        'console initial JS (console.js)',
        readFileSync(path.join(consoleDir, 'console.js')),
        CONSOLE_GOAL_GZIPPED,
      ),
    );
    const header = ['browser bundle of', 'min KB', 'gzip KB', 'goal gzip KB', 'met'];
    console.log(markdownTable(header, rows));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
