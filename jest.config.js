/** One jest run for the whole workspace: `npm test`, or `npx jest apps/<service>` for one project. */
// ESM-only packages that jest (CommonJS) must transform.
const esmPackages = [
  // PGlite's CommonJS build loads Node built-ins with import(), which jest only runs when transformed to require().
  '@electric-sql/pglite',
  '@ensdomains/address-encoder',
  '@ensdomains/content-hash',
  '@ensdomains/ensjs',
  // ensjs's main entry (addEnsContracts, createEnsPublicClient) loads its subgraph client.
  'graphql-request',
  '@noble',
  '@scure',
  'multiformats',
  '@multiformats',
  'uint8arrays',
  'lru-cache',
  'kysely-pglite-dialect',
];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/scripts', '<rootDir>/k8s'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  // multiformats (used by @ensdomains/content-hash) exports only an `import` condition, which jest's
  // CommonJS resolver does not match: point it at its ESM files, which the transform above handles.
  moduleNameMapper: {
    '^multiformats$': '<rootDir>/node_modules/multiformats/dist/src/index.js',
    '^multiformats/(.+)$': '<rootDir>/node_modules/multiformats/dist/src/$1.js',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  // Build output (`npm run build -w @nrp/client`) would be a second `@nrp/client` package.
  modulePathIgnorePatterns: ['<rootDir>/libs/[^/]+/dist/'],
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker keeps what each test file's module registry leaves behind; past this after a file, jest starts a fresh
  // one (a worker that had run ~70 files reached V8's 4 GB heap limit and thrashed in GC for minutes before dying).
  workerIdleMemoryLimit: '1GB',
};
