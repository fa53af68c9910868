import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importCycles } from './check-import-cycles';

let root: string;
function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'import-cycles-'));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'commonjs',
        baseUrl: '.',
        paths: { '@x/lib': ['libs/lib/src/index.ts'] },
      },
      include: ['apps', 'libs'],
    }),
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('importCycles', () => {
  it('finds none in a tree that imports one way, tests and scripts aside', () => {
    write('libs/lib/src/index.ts', "export * from './a';\n");
    write('libs/lib/src/a.ts', 'export const a = 1;\n');
    write('apps/app/src/main.ts', "import { a } from '@x/lib';\nexport const b = a;\n");
    write('apps/app/test/main.test.ts', "import { b } from '../src/main';\nexport const c = b;\n");
    expect(importCycles(root)).toEqual([]);
  });

  it('finds a cycle of type-only imports, one through a package index, and a file importing itself', () => {
    write(
      'apps/app/src/context.ts',
      "import type { Cache } from './cache';\nexport interface Context { cache: Cache }\n",
    );
    write(
      'apps/app/src/cache.ts',
      "import type { Context } from './context';\nexport type Cache = (c: Context) => void;\n",
    );
    write('libs/lib/src/index.ts', "export * from './a';\n");
    write(
      'libs/lib/src/a.ts',
      "import { b } from '@x/lib';\nexport const a = () => b;\nexport const b = 1;\n",
    );
    write(
      'apps/app/src/self.ts',
      "import { s } from './self';\nexport const t = () => s;\nexport const s = 1;\n",
    );
    expect(importCycles(root)).toEqual(
      expect.arrayContaining([
        ['apps/app/src/cache.ts', 'apps/app/src/context.ts'],
        ['libs/lib/src/a.ts', 'libs/lib/src/index.ts'],
        ['apps/app/src/self.ts'],
      ]),
    );
    expect(importCycles(root)).toHaveLength(3);
  });
});
