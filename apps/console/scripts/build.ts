/**
 * `npx nx build console`: the console's static files in `dist/apps/console/public/` (index.html, console.css and
 * esbuild's minified browser bundle console.js) and `dist/apps/console/main.js`, the static server of its image.
 *
 *   node -r esbuild-register apps/console/scripts/build.ts
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(__dirname, '../../..');
const page = path.join(root, 'apps/console/src/page');

/** The page's files into `publicDir`: what the static server serves. */
export async function buildConsolePage(publicDir: string): Promise<void> {
  mkdirSync(publicDir, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: [path.join(page, 'main.ts')],
    outfile: path.join(publicDir, 'console.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    tsconfig: path.join(root, 'apps/console/tsconfig.json'),
    logLevel: 'error',
  });
  for (const file of ['index.html', 'console.css'])
    copyFileSync(path.join(page, file), path.join(publicDir, file));
}

async function buildConsole(): Promise<void> {
  const outDir = path.join(root, 'dist/apps/console');
  rmSync(outDir, { recursive: true, force: true });
  await buildConsolePage(path.join(outDir, 'public'));
  await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'apps/console/src/main.ts')],
    outfile: path.join(outDir, 'main.js'),
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    format: 'cjs',
    minifySyntax: true,
    minifyWhitespace: true,
    logLevel: 'error',
  });
  console.log(`console built in ${path.relative(root, outDir)}`);
}

if (require.main === module) {
  buildConsole().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
