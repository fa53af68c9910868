/**
 * Fails when the production sources (apps/<app>/src, libs/<lib>/src) import one another in a cycle, type-only imports
 * included: a cycle means two modules are one module in two files, and at run time one of them sees the other half
 * built. Imports are resolved as TypeScript resolves them (relative paths and the `@nrp/*` workspace packages), so a
 * cycle through a library's index is found too. Prints each cycle once, as the chain of files that closes it.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

function productionRoots(root: string): string[] {
  return ['apps', 'libs'].flatMap((group) =>
    readdirSync(path.join(root, group))
      .map((name) => path.join(root, group, name, 'src'))
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()),
  );
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = path.join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  return ts.parseJsonConfigFileContent(config, ts.sys, root).options;
}

/** Each production file and the production files it imports. */
function importGraph(root: string): Map<string, string[]> {
  const options = compilerOptions(root);
  const files = productionRoots(root).flatMap(sourceFiles);
  const inGraph = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, false);
    const targets = importedFiles
      .map(({ fileName }) => ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule)
      .map((resolved) => (resolved ? path.resolve(resolved.resolvedFileName) : undefined))
      .filter((target): target is string => target !== undefined && inGraph.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import cycles among the production sources of the workspace at `root`: Tarjan's strongly connected components
 * of more than one file, or a file importing itself, as paths relative to `root`.
 */
export function importCycles(root: string): string[][] {
  const graph = importGraph(root);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) {
      found.push(component.map((member) => path.relative(root, member)).sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

if (require.main === module) {
  const found = importCycles(path.resolve(__dirname, '..'));
  if (found.length > 0) {
    console.error(`Import cycles in production sources (${found.length}):`);
    for (const component of found) console.error(`- ${component.join(' <-> ')}`);
    process.exit(1);
  }
  console.log('No import cycles in apps/*/src and libs/*/src.');
}
