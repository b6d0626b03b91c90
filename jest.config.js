// Nest 12 packages (and the other packages listed below) are ESM-only; @swc/jest transforms them to CommonJS for jest.
const esmOnly = ['@nestjs', 'load-esm', 'uid', 'file-type', '@standard-schema', 'cookie', 'content-disposition', 'commander', '@fastify/cookie', '@octokit'];

const swcTransform = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
    },
    module: { type: 'commonjs' },
  },
];

const shared = {
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
  transform: { '^.+\\.(t|j|mj)s$': swcTransform },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    '^@aas/contracts$': '<rootDir>/libs/contracts/src',
    '^@aas/contracts/(.*)$': '<rootDir>/libs/contracts/src/$1',
    '^@aas/problem-details$': '<rootDir>/libs/problem-details/src',
    '^@aas/transport$': '<rootDir>/libs/transport/src',
    '^@aas/platform$': '<rootDir>/libs/platform/src',
    '^@aas/platform/tracing$': '<rootDir>/libs/platform/src/tracing/start-tracing',
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // Its exports offer only `import` under `node`, which jest's CommonJS resolver does not take; swc transforms the file.
    '^@octokit/webhooks-methods$': '<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js',
  },
};

module.exports = {
  // A global option (ignored inside projects): e2e tests wait for runs and schedules to fire.
  testTimeout: 60000,
  // Test files run one after another in one worker (2 cores: maxWorkers 1), which is replaced once it holds
  // more than this after a file: otherwise its heap grows past 3 GB over the suite, and major GCs of
  // 100-150 ms fail the tests that bound event-loop stalls. (Setting it also makes jest use a worker.)
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      // One template database per run, migrated once and copied for each test file (test/support/template-database.ts).
      globalSetup: '<rootDir>/test/support/jest-global-setup.js',
      globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/{apps,libs}/**/*.int-spec.ts'],
    },
  ],
};
