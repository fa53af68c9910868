/**
 * The module boundaries in eslint.config.mjs fire: each fixture line is linted with the project's own config (ESLint's
 * API, as `npm run lint` runs it) as if it were a file at the given path, and must fail with its rule, while the same
 * line at a path the boundary does not cover passes. ESLint loads its config with import(), which jest's CommonJS
 * runtime cannot, so one child process lints every case.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '..');

interface Case {
  code: string;
  filePath: string;
}

interface Outcome {
  filePath: string;
  rules: string[];
}

const LINT_CASES = `
import { ESLint } from 'eslint';
const cases = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd() });
const outcomes = [];
for (const { code, filePath } of cases) {
  const [result] = await eslint.lintText(code, { filePath });
  outcomes.push({ filePath, rules: result.messages.map((m) => m.ruleId ?? m.message) });
}
console.log(JSON.stringify(outcomes));
`;

async function lint(cases: Case[]): Promise<Outcome[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', LINT_CASES, JSON.stringify(cases)],
    { cwd: root, timeout: 120_000 },
  );
  return JSON.parse(stdout) as Outcome[];
}

// Each line is used (`void`) so that only the boundary rule can complain.
const violations: Array<{
  boundary: string;
  code: string;
  filePath: string;
  allowedAt: string;
  rule: string;
}> = [
  {
    boundary: 'libs never import apps (workspace name)',
    code: `import { configSchema } from '@nrp/mint-svc';\nvoid configSchema;\n`,
    filePath: 'libs/chain/src/fixture.ts',
    allowedAt: 'bench/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'libs never import apps (relative path, from a lib test)',
    code: `import { configSchema } from '../../../apps/mint-svc/src/config';\nvoid configSchema;\n`,
    filePath: 'libs/chain/test/fixture.ts',
    allowedAt: 'scripts/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'libs/api holds only schemas (no client or server)',
    code: `import { createApp } from '@nrp/server';\nvoid createApp;\n`,
    filePath: 'libs/api/src/fixture.ts',
    allowedAt: 'apps/mint-svc/src/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'libs/ens has no I/O (node built-in)',
    code: `import { readFileSync } from 'node:fs';\nvoid readFileSync;\n`,
    filePath: 'libs/ens/src/fixture.ts',
    allowedAt: 'libs/chain/src/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'libs/ens has no I/O (bare built-in)',
    code: `import { createServer } from 'http';\nvoid createServer;\n`,
    filePath: 'libs/ens/src/fixture.ts',
    allowedAt: 'libs/server/src/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'libs/ens has no I/O (ethers provider)',
    code: `import { JsonRpcProvider } from 'ethers';\nvoid JsonRpcProvider;\n`,
    filePath: 'libs/ens/src/fixture.ts',
    allowedAt: 'libs/chain/src/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'libs/ens has no I/O (fetch)',
    code: `export const get = (url: string) => fetch(url);\n`,
    filePath: 'libs/ens/src/fixture.ts',
    allowedAt: 'libs/chain/src/fixture.ts',
    rule: 'no-restricted-globals',
  },
  {
    boundary: 'routes never import data/',
    code: `import { findSubname } from '../data/subnames';\nvoid findSubname;\n`,
    filePath: 'apps/offchain-svc/src/routes/fixture.ts',
    allowedAt: 'apps/offchain-svc/src/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: "routes never import data/ (a capability's routes.ts)",
    code: `import { findConfirmed } from '../data/images';\nvoid findConfirmed;\n`,
    filePath: 'apps/metadata-svc/src/uploads/routes.ts',
    allowedAt: 'apps/metadata-svc/src/uploads/uploads.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'production code never imports @nrp/testkit (app)',
    code: `import { startEnsChain } from '@nrp/testkit';\nvoid startEnsChain;\n`,
    filePath: 'apps/resolver-svc/src/fixture.ts',
    allowedAt: 'apps/resolver-svc/dev/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'production code never imports @nrp/testkit (lib, relative path)',
    code: `import { startEnsChain } from '../../testkit/src';\nvoid startEnsChain;\n`,
    filePath: 'libs/chain/src/fixture.ts',
    allowedAt: 'libs/chain/test/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: "the console uses the libraries' public exports (page)",
    code: `import { createMintClient } from '@nrp/client/src/mint';\nvoid createMintClient;\n`,
    filePath: 'apps/console/src/page/fixture.ts',
    allowedAt: 'apps/mint-svc/test/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: "the console uses the libraries' public exports (its tests)",
    code: `import { chainByName } from '@nrp/ens/src/chains';\nvoid chainByName;\n`,
    filePath: 'apps/console/test/fixture.ts',
    allowedAt: 'libs/chain/test/fixture.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: "a service's tests never import another service's test files",
    code: `import { startOffchainService } from '../../offchain-svc/test/helpers';\nvoid startOffchainService;\n`,
    filePath: 'apps/resolver-svc/test/fixture.test.ts',
    allowedAt: 'scripts/fixture.test.ts',
    rule: 'no-restricted-imports',
  },
  {
    boundary: 'bench/ never imports test/',
    code: `import { buildService } from '../apps/resolver-svc/test/support';\nvoid buildService;\n`,
    filePath: 'bench/fixture.ts',
    allowedAt: 'scripts/fixture.ts',
    rule: 'no-restricted-imports',
  },
];

let outcomes: Outcome[];

beforeAll(async () => {
  outcomes = await lint(
    violations.flatMap(({ code, filePath, allowedAt }) => [
      { code, filePath },
      { code, filePath: allowedAt },
    ]),
  );
}, 120_000);

it.each(violations.map((v, index) => [v.boundary, v, index] as const))(
  '%s',
  (_boundary, violation, index) => {
    const [violating, allowed] = [outcomes[2 * index], outcomes[2 * index + 1]];
    expect(violating).toEqual({ filePath: violation.filePath, rules: [violation.rule] });
    expect(allowed).toEqual({ filePath: violation.allowedAt, rules: [] });
  },
);

/** The `.ts` files under `dir`, recursively; none when it does not exist. */
function tsFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('service tests use the testkit, not copies of it', () => {
  const testkitExports = new Set(
    tsFiles(path.join(root, 'libs/testkit/src')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^export (?:async )?(?:function|const|class) (\w+)/gm)].map(
        (match) => match[1],
      ),
    ),
  );
  const serviceTestFiles = readdirSync(path.join(root, 'apps')).flatMap((app) =>
    ['test', 'dev'].flatMap((dir) => tsFiles(path.join(root, 'apps', app, dir))),
  );

  it('finds the testkit exports and the service test files it checks', () => {
    expect(testkitExports).toContain('startTestService');
    expect(testkitExports).toContain('expectProblem');
    expect(testkitExports).toContain('expectUpstreamProblem');
    expect(serviceTestFiles.length).toBeGreaterThan(20);
  });

  it('no service test defines a function named like a testkit export, or imports one under another name', () => {
    const offenders = serviceTestFiles.flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      const defined = [...source.matchAll(/\b(?:function|const|let|class) (\w+)/g)].map((match) => match[1]);
      const renamed = [...source.matchAll(/\b(\w+) as \w+\s*[,}]/g)].map((match) => match[1]);
      return [...defined, ...renamed]
        .filter((name) => name !== undefined && testkitExports.has(name))
        .map((name) => `${path.relative(root, file)}: ${name}`);
    });
    expect(offenders).toEqual([]);
  });
});
