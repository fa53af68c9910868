/**
 * `npx nx build <service>` (`npx nx run-many -t build` for all four): one self-contained bundle per service in
 * `dist/apps/<service>/` (and `build-service.ts prover`: the prover of `npm run prover`, scripts/l2-prover.ts, in
 * `dist/prover/`, for its image):
 * - `main.js`: esbuild's CommonJS bundle of the service, its workspace libraries and every pure-JS dependency
 *   (no TypeScript, testkit, dev-stack hook (`apps/<service>/dev/`) or other app at run time), with a source map without sources;
 * - `package.json` and `package-lock.json`: only the packages the bundle loads from `node_modules` at run time
 *   (native addons and packages that read their own files), at the root lockfile's versions, so an image installs
 *   exactly those with `npm ci`.
 *
 *   node -r esbuild-register scripts/build-service.ts metadata-svc
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(__dirname, '..');

/**
 * Loaded from node_modules, never bundled: native addons (sharp, resvg, secp256k1's libsecp256k1, whose prebuilt
 * binary node-gyp-build finds beside the package at run time), and packages that read files beside their code
 * (PGlite's WebAssembly and its extensions' archives, found through `import.meta.url` or `__dirname`, which a bundle
 * does not keep).
 */
const RUNTIME_PACKAGES = [
  'sharp',
  '@resvg/resvg-js',
  'jsdom',
  'swagger-ui-dist',
  '@electric-sql/pglite',
  'secp256k1',
];

/** Packages a source file finds with a computed `require.resolve` at run time, which a bundler cannot follow. */
const RESOLVED_AT_RUN_TIME: Record<string, string[]> = {
  'apps/metadata-svc/src/tokens/fonts.ts': ['@fontsource/dejavu-sans', '@fontsource/noto-emoji'],
};

/** Optional native variants of bundled packages that the bundle never loads (pg's `pg.native`). */
const NEVER_LOADED = ['pg-native'];

interface LockEntry {
  version?: string;
  license?: string;
  integrity?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [field: string]: unknown;
}

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** Where Node would find `dependency` from the package installed at `from` (a lockfile path). */
function locate(packages: Lockfile['packages'], from: string, dependency: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${dependency}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent === -1 ? '' : dir.slice(0, parent);
  }
}

/**
 * The root lockfile cut down to `roots` and what they need. An entry reached only through optional
 * dependencies (another platform's binary) stays optional; the root's dev flags do not apply here.
 */
function pruneLockfile(lock: Lockfile, roots: string[]): Lockfile['packages'] {
  const required = new Set<string>();
  const reached = new Set<string>();
  const walk = (start: string[], withOptional: boolean, into: Set<string>) => {
    const queue = start.map((name) => {
      const at = locate(lock.packages, '', name);
      if (!at) throw new Error(`${name} is not in package-lock.json: run npm install`);
      return at;
    });
    while (queue.length > 0) {
      const at = queue.pop() as string;
      if (into.has(at)) continue;
      into.add(at);
      const entry = lock.packages[at] ?? {};
      const deps = {
        ...entry.dependencies,
        ...(withOptional ? entry.optionalDependencies : {}),
      };
      for (const dependency of Object.keys(deps)) {
        const found = locate(lock.packages, at, dependency);
        // An optional dependency for another platform may be absent; a missing required one is a broken lock.
        if (found) queue.push(found);
        else if (!entry.optionalDependencies?.[dependency])
          throw new Error(`${at} needs ${dependency}, which package-lock.json lacks`);
      }
    }
  };
  walk(roots, false, required);
  walk(roots, true, reached);
  const packages: Lockfile['packages'] = {};
  for (const at of [...reached].sort()) {
    const {
      dev: _dev,
      devOptional: _devOptional,
      optional: _optional,
      peer: _peer,
      ...entry
    } = lock.packages[at] ?? {};
    packages[at] = required.has(at) ? entry : { ...entry, optional: true };
  }
  return packages;
}

/** What one bundle is built from and where it goes. */
interface BundleTarget {
  name: string;
  version: string;
  /** The entry point, relative to the root. */
  entry: string;
  /** Relative to the root. */
  outDir: string;
  /** The files under apps/ it may contain. */
  ownsAppFile(file: string): boolean;
}

function bundleTarget(target: string): BundleTarget {
  if (target === 'prover') {
    const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    return {
      name: '@nrp/prover',
      version,
      entry: 'scripts/l2-prover.ts',
      outDir: 'dist/prover',
      ownsAppFile: () => false,
    };
  }
  const app = JSON.parse(readFileSync(path.join(root, 'apps', target, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return {
    name: app.name,
    version: app.version,
    entry: `apps/${target}/src/main.ts`,
    outDir: `dist/apps/${target}`,
    ownsAppFile: (file) => file.startsWith(`apps/${target}/src/`) || file === `apps/${target}/package.json`,
  };
}

async function buildBundle(target: BundleTarget): Promise<void> {
  const outDir = path.join(root, target.outDir);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  const result = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, target.entry)],
    outfile: path.join(outDir, 'main.js'),
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    format: 'cjs',
    external: [...RUNTIME_PACKAGES, ...NEVER_LOADED],
    minifySyntax: true,
    minifyWhitespace: true,
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });

  const inputs = Object.keys(result.metafile.inputs);
  const imported = new Set(
    Object.values(result.metafile.inputs).flatMap((input) =>
      input.imports.filter((i) => i.external).map((i) => i.path),
    ),
  );
  const packageOf = (specifier: string) =>
    specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');
  const runtime = new Set([...imported].map(packageOf).filter((name) => RUNTIME_PACKAGES.includes(name)));
  for (const [file, packages] of Object.entries(RESOLVED_AT_RUN_TIME)) {
    if (inputs.includes(file)) for (const name of packages) runtime.add(name);
  }
  const foreign = inputs.filter(
    (file) => file.startsWith('libs/testkit/') || (file.startsWith('apps/') && !target.ownsAppFile(file)),
  );
  if (foreign.length > 0) throw new Error(`${target.name}: the bundle would contain ${foreign.join(', ')}`);

  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lockfile;
  const rootPackage = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    engines: Record<string, string>;
  };
  const dependencies = Object.fromEntries(
    [...runtime].sort().map((name) => [name, lock.packages[`node_modules/${name}`]?.version ?? '']),
  );
  const manifest = {
    name: target.name,
    version: target.version,
    private: true,
    main: 'main.js',
    engines: rootPackage.engines,
    scripts: { start: 'node --enable-source-maps main.js' },
    dependencies,
  };
  writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const packages = pruneLockfile(lock, [...runtime]);
  const lockfile = {
    name: target.name,
    version: target.version,
    lockfileVersion: lock.lockfileVersion,
    requires: true,
    packages: { '': { name: target.name, version: target.version, dependencies }, ...packages },
  };
  writeFileSync(path.join(outDir, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
  const size = (readFileSync(path.join(outDir, 'main.js')).length / 1e6).toFixed(1);
  console.log(
    `${target.name}: ${target.outDir}/main.js ${size} MB; runtime packages: ${Object.keys(dependencies).join(', ') || 'none'}`,
  );
}

const target = process.argv[2];
if (!target) {
  console.error('usage: build-service.ts <service>|prover');
  process.exit(2);
}
buildBundle(bundleTarget(target)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
