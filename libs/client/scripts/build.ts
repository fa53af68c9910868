/**
 * Builds the publishable package into `dist/` (or the directory given as the first argument): ESM (`esm/*.js`)
 * and CommonJS (`cjs/*.cjs`) with type declarations beside them, one module per source file so bundlers drop
 * what a page does not import, and a package.json with `exports` per service. The workspace libraries the
 * schemas use (`@nrp/validation`'s schema helpers, `@nrp/ens`) are built in under `internal/`; npm packages stay
 * imports and become the package's dependencies.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import ts from 'typescript';

const clientRoot = path.resolve(__dirname, '..');
const src = path.join(clientRoot, 'src');
const libs = path.dirname(clientRoot);
const repoRoot = path.dirname(libs);
/** `@nrp/api`'s schemas ship in the package as its `schemas/*` modules (the opt-in response validation). */
const apiSrc = path.join(libs, 'api/src');
const API_PREFIX = '@nrp/api/';

/** Output module name (without extension) by source file. */
const modules = new Map<string, string>();
for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
  if (file.endsWith('.ts'))
    modules.set(path.join(src, file), file.replace(/\.ts$/, '').split(path.sep).join('/'));
}
for (const file of readdirSync(apiSrc, { encoding: 'utf8' })) {
  if (file.endsWith('.ts') && file !== 'index.ts')
    modules.set(path.join(apiSrc, file), `schemas/${file.replace(/\.ts$/, '')}`);
}

/** The output module of a `@nrp/api/<name>` specifier. */
function apiModule(specifier: string): string | undefined {
  return specifier.startsWith(API_PREFIX) ? `schemas/${specifier.slice(API_PREFIX.length)}` : undefined;
}
const internal: Record<string, { source: string; module: string }> = {
  '@nrp/validation': {
    source: path.join(libs, 'validation/src/schemas.ts'),
    module: 'internal/validation/schemas',
  },
  '@nrp/ens': { source: path.join(libs, 'ens/src/index.ts'), module: 'internal/ens/index' },
};
for (const { source, module } of Object.values(internal)) modules.set(source, module);

/** Service entry points besides the root: the client, and its schemas for opt-in response validation. */
const SERVICES = ['metadata', 'mint', 'offchain', 'resolver'] as const;

function relativeSpecifier(fromModule: string, toModule: string, extension: string): string {
  const relative = path.posix.relative(path.posix.dirname(fromModule), toModule);
  return `${relative.startsWith('.') ? relative : `./${relative}`}${extension}`;
}

/** Keeps one output module per source module: imports between them stay imports, with their output extension. */
function moduleGraph(extension: string): Plugin {
  return {
    name: 'module-graph',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point') return undefined;
        const importer = modules.get(args.importer);
        const workspaceModule = internal[args.path]?.module ?? apiModule(args.path);
        if (workspaceModule && importer) {
          return { path: relativeSpecifier(importer, workspaceModule, extension), external: true };
        }
        if (!args.path.startsWith('.')) return { path: args.path, external: true };
        if (!args.importer.startsWith(src) && !args.importer.startsWith(apiSrc)) return undefined;
        const resolved = await pluginBuild.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
        });
        const target = modules.get(resolved.path);
        if (!importer || !target) throw new Error(`${args.importer}: cannot map import ${args.path}`);
        return { path: relativeSpecifier(importer, target, extension), external: true };
      });
    },
  };
}

async function buildJs(outDir: string, format: 'esm' | 'cjs'): Promise<Metafile> {
  const extension = format === 'esm' ? '.js' : '.cjs';
  const result = await build({
    entryPoints: [...modules].map(([source, module]) => ({ in: source, out: module })),
    outdir: path.join(outDir, format),
    outExtension: { '.js': extension },
    bundle: true,
    format,
    platform: 'neutral',
    target: 'es2022',
    plugins: [moduleGraph(extension)],
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

/** Declarations from tsc, moved beside the JS with extension-full specifiers (`.d.ts` and `.d.cts`). */
function buildTypes(outDir: string): void {
  const declarationDir = mkdtempSync(path.join(tmpdir(), 'nrp-client-types-'));
  try {
    const program = ts.createProgram([path.join(src, 'index.ts')], {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      skipLibCheck: true,
      types: [],
      declaration: true,
      emitDeclarationOnly: true,
      declarationDir,
      rootDir: libs,
      // Workspace libraries by path, not through node_modules (whose modules tsc does not emit).
      paths: {
        ...Object.fromEntries(Object.entries(internal).map(([name, lib]) => [name, [lib.source]])),
        [`${API_PREFIX}*`]: [path.join(apiSrc, '*')],
      },
    });
    const emitted = program.emit();
    const errors = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
    if (errors.length > 0) {
      throw new Error(ts.formatDiagnostics(errors, ts.createCompilerHost({})));
    }
    const moduleOf = (declarationFile: string): string | undefined => {
      const source = path.join(libs, declarationFile).replace(/\.d\.ts$/, '.ts');
      if (modules.has(source)) return modules.get(source);
      const ensDir = path.join(libs, 'ens/src');
      return source.startsWith(ensDir)
        ? `internal/ens/${path.relative(ensDir, source).replace(/\.ts$/, '')}`
        : undefined;
    };
    for (const file of readdirSync(declarationDir, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.d.ts')) continue;
      const module = moduleOf(file);
      if (!module) continue;
      const text = readFileSync(path.join(declarationDir, file), 'utf8');
      for (const [format, extension] of [
        ['esm', '.js'],
        ['cjs', '.cjs'],
      ] as const) {
        const rewritten = text.replace(
          /(from |import\()(['"])([^'"]+)\2/g,
          (whole, lead: string, quote: string, spec: string) => {
            const workspaceModule = internal[spec]?.module ?? apiModule(spec);
            if (workspaceModule)
              return `${lead}${quote}${relativeSpecifier(module, workspaceModule, extension)}${quote}`;
            if (spec.startsWith('.')) return `${lead}${quote}${spec}${extension}${quote}`;
            return whole;
          },
        );
        const target = path.join(outDir, format, `${module}${format === 'esm' ? '.d.ts' : '.d.cts'}`);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, rewritten);
      }
    }
  } finally {
    rmSync(declarationDir, { recursive: true, force: true });
  }
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The npm packages the built modules import, with the workspace's version ranges. */
function dependencies(metafile: Metafile): Record<string, string> {
  const rootPackage = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && !imported.path.startsWith('.')) names.add(packageName(imported.path));
    }
  }
  return Object.fromEntries(
    [...names].sort().map((name) => {
      const range = rootPackage.dependencies[name];
      if (!range) throw new Error(`${name} is imported but is not a dependency of the workspace`);
      return [name, range];
    }),
  );
}

function exportEntry(module: string) {
  return {
    import: { types: `./esm/${module}.d.ts`, default: `./esm/${module}.js` },
    require: { types: `./cjs/${module}.d.cts`, default: `./cjs/${module}.cjs` },
  };
}

export async function buildClientPackage(outDir: string): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  const esm = await buildJs(outDir, 'esm');
  await buildJs(outDir, 'cjs');
  buildTypes(outDir);
  const workspacePackage = JSON.parse(readFileSync(path.join(clientRoot, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    description: string;
  };
  const manifest = {
    name: workspacePackage.name,
    version: workspacePackage.version,
    description: workspacePackage.description,
    license: 'UNLICENSED',
    type: 'module',
    sideEffects: false,
    engines: { node: '>=20' },
    main: './cjs/index.cjs',
    module: './esm/index.js',
    types: './esm/index.d.ts',
    exports: {
      '.': exportEntry('index'),
      ...Object.fromEntries(SERVICES.map((service) => [`./${service}`, exportEntry(service)])),
      ...Object.fromEntries(
        SERVICES.map((service) => [`./${service}/schemas`, exportEntry(`schemas/${service}`)]),
      ),
      './package.json': './package.json',
    },
    dependencies: dependencies(esm),
  };
  writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(path.join(clientRoot, 'README.md'), path.join(outDir, 'README.md'));
}

if (require.main === module) {
  buildClientPackage(path.resolve(process.argv[2] ?? path.join(clientRoot, 'dist'))).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
