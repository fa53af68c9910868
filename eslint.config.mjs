import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Module boundaries (scripts/lint-boundaries.test.ts proves each one fires). ESLint replaces a rule's options
// rather than merging them, so each file group below lists every restriction that applies to it.
const noApps = {
  regex: '^@nrp/[a-z-]+-svc(/|$)|(^|/)apps/',
  message: 'libs never import apps: move what both need into a lib.',
};
const noTestkit = {
  regex: '^@nrp/testkit(/|$)|(^|/)testkit/',
  message: 'production code never imports @nrp/testkit (test, bench and dev/ code may).',
};
const noTestDirs = {
  regex: '(^|/)test(/|$)',
  message:
    "bench/ never imports a test/ directory: what a bench shares with tests lives in the app's dev/ or a lib.",
};
const noOtherServiceTests = {
  regex: '(^|/)apps/[a-z-]+/test(/|$)|^\\.\\./\\.\\./[a-z-]+/test(/|$)',
  message:
    "a service's tests never import another service's test files: shared builders live in @nrp/testkit (a peer service is built by its own createService).",
};
const noDataLayer = {
  regex: '(^|/)data(/|$)',
  message:
    'routes call the domain, never data/ directly: handlers parse, call one domain function and answer.',
};
const noIoModules = {
  regex:
    '^(node:|(fs|net|http|https|http2|tls|dgram|dns|child_process|worker_threads|cluster|readline)(/|$))|^(ethers/providers|viem|ioredis|pg|undici|kysely|@aws-sdk/)',
  message: 'libs/ens is pure (it also runs in browsers): no I/O modules.',
};
const ethersProviders = [
  'AbstractProvider',
  'AlchemyProvider',
  'AnkrProvider',
  'BrowserProvider',
  'ChainstackProvider',
  'CloudflareProvider',
  'Contract',
  'EtherscanProvider',
  'FallbackProvider',
  'FetchRequest',
  'getDefaultProvider',
  'InfuraProvider',
  'IpcSocketProvider',
  'JsonRpcProvider',
  'PocketProvider',
  'QuickNodeProvider',
  'SocketProvider',
  'WebSocketProvider',
];
const noRuntimePackages = {
  regex: '^@nrp/(client|server|db|storage|chain|auth|outbox)(/|$)',
  message: 'libs/api holds only the schemas: the client and the services import it, never the reverse.',
};
const noDeepImports = {
  // The test kit's browser module is deep on purpose: only browser tests load playwright-core.
  regex: '^@nrp/(?!testkit/src/browser$)[a-z-]+/src(/|$)',
  message:
    "the console uses the libraries' public exports (a package's index or its package.json exports, e.g. " +
    '@nrp/client/offchain), never their src/ files.',
};
const restrictImports = (patterns, paths = []) => ['error', { patterns, paths }];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.data/**',
      '.nx/**',
      'libs/contracts/artifacts/**',
      'coverage/**',
      'test-output/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    files: ['libs/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noApps]) },
  },
  {
    files: ['libs/*/src/**/*.ts'],
    ignores: ['libs/testkit/src/**'],
    rules: { 'no-restricted-imports': restrictImports([noApps, noTestkit]) },
  },
  {
    files: ['libs/ens/src/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictImports(
        [noApps, noTestkit, noIoModules],
        [
          {
            name: 'ethers',
            importNames: ethersProviders,
            message: 'libs/ens is pure: no providers or contracts.',
          },
        ],
      ),
      'no-restricted-globals': [
        'error',
        ...['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource'].map((name) => ({
          name,
          message: 'libs/ens is pure: no I/O.',
        })),
      ],
    },
  },
  {
    files: ['libs/api/src/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictImports([
        noApps,
        noTestkit,
        { ...noIoModules, message: 'libs/api is pure schemas (it also runs in browsers): no I/O modules.' },
        noRuntimePackages,
      ]),
    },
  },
  {
    files: ['apps/*/src/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noTestkit]) },
  },
  {
    // A service grouped by capability keeps each capability's routes in `src/<capability>/routes.ts`.
    files: ['apps/*/src/routes/**/*.ts', 'apps/*/src/*/routes.ts'],
    rules: { 'no-restricted-imports': restrictImports([noTestkit, noDataLayer]) },
  },
  {
    files: ['apps/*/test/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noOtherServiceTests]) },
  },
  {
    files: ['apps/console/src/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noTestkit, noDeepImports]) },
  },
  {
    files: ['apps/console/test/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noOtherServiceTests, noDeepImports]) },
  },
  {
    files: ['apps/console/scripts/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noDeepImports]) },
  },
  {
    files: ['bench/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([noTestDirs]) },
  },
  {
    files: ['scripts/**/*.ts', 'bench/**/*.ts', '**/scripts/**/*.ts', 'apps/*/src/cli/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        module: 'writable',
        require: 'readonly',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
      },
    },
  },
  {
    files: ['libs/client/test/browser/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        document: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        URLSearchParams: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
);
