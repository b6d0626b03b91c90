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
  // node, under a lock that lets a file marked `@run-alone` run with no other beside it (test/support/jest-environment.js).
  testEnvironment: '<rootDir>/test/support/jest-environment.js',
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
  // Two files at a time: an in-process test system runs on one event loop, so one worker leaves a core
  // idle. The files that bound event-loop stalls or latencies say `@run-alone` and run first, one by one
  // (test/support/jest-sequencer.js). A worker is replaced once it holds more than this after a file:
  // otherwise its heap grows past 3 GB over the suite, and major GCs of 100-150 ms fail those bounds.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/jest-sequencer.js',
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      // Names this run's template database (migrated once, copied for each file) and its run-alone lock.
      globalSetup: '<rootDir>/test/support/jest-global-setup.js',
      globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/{apps,libs}/**/*.int-spec.ts'],
    },
  ],
};
