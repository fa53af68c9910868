import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
// solc-js ships no types; its `compile(input, { import })` API is stable across 0.8.x.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const solc = require('solc') as {
  compile(input: string, callbacks: { import(p: string): ImportResult }): string;
};

type ImportResult = { contents: string } | { error: string };

export interface CompiledArtifact {
  contractName: string;
  abi: unknown[];
  bytecode: string;
}

export const CONTRACTS_ROOT = path.resolve(__dirname, '..');
export const SOURCES_DIR = path.join(CONTRACTS_ROOT, 'src');
export const ARTIFACTS_DIR = path.join(CONTRACTS_ROOT, 'artifacts');

function listSolidity(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) return listSolidity(full);
      return entry.endsWith('.sol') ? [full] : [];
    });
}

/**
 * Resolves `@scope/pkg/...` imports from node_modules (OpenZeppelin, @unruggable/gateways and their relative
 * imports), looked up as files: a package's `exports` map does not list its Solidity sources.
 */
function findImport(importPath: string): ImportResult {
  const candidates = [
    ...(require.resolve.paths(importPath) ?? []).map((dir) => path.join(dir, importPath)),
    path.join(SOURCES_DIR, importPath),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  return found ? { contents: readFileSync(found, 'utf8') } : { error: `import not found: ${importPath}` };
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles every `src/**\/*.sol` with the installed solc-js (optimizer on) and returns one artifact per
 * file: the contract named like the file (one deployable contract per file; an abstract one, which has no bytecode,
 * is only inherited and gets none).
 */
export function compileAll(): CompiledArtifact[] {
  const files = listSolidity(SOURCES_DIR);
  const sources: Record<string, { content: string }> = {};
  for (const file of files)
    sources[path.relative(SOURCES_DIR, file)] = { content: readFileSync(file, 'utf8') };
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  return Object.keys(sources)
    .map((source) => {
      const contractName = path.basename(source, '.sol');
      const contract = output.contracts?.[source]?.[contractName];
      if (!contract) throw new Error(`${source} must define a contract named ${contractName}`);
      return { contractName, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    })
    .filter((artifact) => artifact.bytecode !== '0x');
}

export function artifactJson(artifact: CompiledArtifact): string {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

/** One state variable (or struct member) as solc lays it out in storage. */
export interface StorageEntry {
  label: string;
  slot: string;
  offset: number;
  type: string;
}

export interface StorageLayout {
  storage: StorageEntry[];
  /** Type id (as in `StorageEntry.type`) → its members when it is a struct. */
  types: Record<string, { members?: StorageEntry[] }>;
}

type LayoutOutput = Omit<SolcOutput, 'contracts'> & {
  contracts?: Record<string, Record<string, { storageLayout: StorageLayout }>>;
};

/**
 * solc's storage layout of the contract named like `src/<source>`, for tests that hold a layout other contracts read
 * as an interface.
 */
export function storageLayout(source: string): StorageLayout {
  const input = {
    language: 'Solidity',
    sources: { [source]: { content: readFileSync(path.join(SOURCES_DIR, source), 'utf8') } },
    settings: { outputSelection: { '*': { '*': ['storageLayout'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as LayoutOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const layout = output.contracts?.[source]?.[path.basename(source, '.sol')]?.storageLayout;
  if (!layout) throw new Error(`${source} has no storage layout`);
  return layout;
}
