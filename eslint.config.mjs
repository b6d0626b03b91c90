// @ts-check
import eslint from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The walls of the design (docs/architecture.md, "Walls"): which part of the repository may import
 * which. Imports are resolved (relative paths, and the @aas/* aliases of the tsconfigs), so a wall
 * holds however a path is spelled; test/lint-boundaries.e2e-spec.ts proves each one.
 */
const walls = {
  plugins: { boundaries },
  settings: {
    'import/resolver': {
      typescript: { noWarnOnMultipleProjects: true, project: ['apps/console/tsconfig.json', 'libs/sdk/tsconfig.json', 'tsconfig.json'] },
    },
    'boundaries/elements': [
      { type: 'app', pattern: 'apps/*', capture: ['app'] },
      { type: 'lib', pattern: 'libs/*', capture: ['lib'] },
      { type: 'tests', pattern: 'test' },
      { type: 'tooling', pattern: '{bench,faults,scripts}' },
    ],
    'boundaries/files': [{ category: 'spec', pattern: '**/*.{spec,int-spec,e2e-spec}.ts' }],
    'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'disallow',
        // Packages are judged too, so that a path that only resolves as a package would ('apps/x') is no way around.
        checkAllOrigins: true,
        // A later policy that matches wins over an earlier one.
        policies: [
          // Packages from node_modules and Node's own modules: anyone.
          { allow: { to: { module: { origin: '{external,core}' } } } },
          // An app imports its own files and the libs; never another app.
          {
            from: { element: { type: 'app' } },
            allow: [
              { to: { element: { type: 'app', captured: { app: '{{ from.element.captured.app }}' } } } },
              { to: { element: { type: 'lib' } } },
            ],
          },
          // The console is a browser app: besides its own files, the SDK only.
          {
            from: { element: { type: 'app', captured: { app: 'console' } } },
            disallow: [
              { to: { element: { type: 'lib', captured: { lib: '!sdk' } } } },
              { to: { module: { origin: 'external', source: '@aas/!(sdk)' } } },
            ],
          },
          // A lib imports its own files and the libs below it: transport problem-details, platform those two and contracts.
          // contracts, problem-details and sdk (a package of its own) import no other lib; no lib imports an app.
          { from: { element: { type: 'lib' } }, allow: { to: { element: { type: 'lib', captured: { lib: '{{ from.element.captured.lib }}' } } } } },
          { from: { element: { type: 'lib', captured: { lib: 'transport' } } }, allow: { to: { element: { type: 'lib', captured: { lib: 'problem-details' } } } } },
          { from: { element: { type: 'lib', captured: { lib: 'platform' } } }, allow: { to: { element: { type: 'lib', captured: { lib: '{problem-details,transport,contracts}' } } } } },
          // No app or lib reaches into another by a path from the repository's root.
          { from: { element: { type: '{app,lib}' } }, disallow: { to: { module: { origin: 'external', source: '{apps,libs}' } } } },
          // The tests beside the code may use test/support; tests, benchmarks, fault tests and scripts import anything.
          { from: { file: { categories: 'spec' } }, allow: { to: { element: { type: 'tests' } } } },
          { from: { element: { type: '{tests,tooling}' } }, allow: { to: { element: { type: '*' } } } },
        ],
      },
    ],
  },
};

/**
 * The persistence seam of each back-end app: SQL, query builders, repositories, transactions and outbox
 * writes live in its stores (`*.store.ts`, behind an abstract class each) and its database folder (schema,
 * migrations, the Transactions seam), so handlers, consumers, processors and services hold logic only and
 * unit tests replace a store with a fake. test/persistence-seam-*.e2e-spec.ts prove it.
 */
const STORE_ONLY = 'belongs in a store (*.store.ts): depend on the store\'s abstract class instead';
const persistenceSeam = (app) => ({
  files: [`apps/${app}/src/**/*.ts`],
  ignores: [`apps/${app}/src/**/*.store.ts`, `apps/${app}/src/database/**`, `apps/${app}/src/**/*.{spec,int-spec,fake}.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [
          {
            name: 'typeorm',
            importNames: ['DataSource', 'EntityManager', 'Repository', 'QueryRunner', 'SelectQueryBuilder'],
            message: `Database access ${STORE_ONLY}.`,
          },
          {
            name: '@nestjs/typeorm',
            importNames: ['InjectDataSource', 'InjectRepository', 'InjectEntityManager', 'TypeOrmModule'],
            message: `Database access ${STORE_ONLY}.`,
          },
          { name: 'pg', message: `Database access ${STORE_ONLY}.` },
          { name: '@aas/platform', importNames: ['recordEvent', 'recordEvents'], message: `Recording an outbox event ${STORE_ONLY}, in the transaction of the change it reports.` },
          // Not persistence, but these are the apps that answer requests: one rule object holds every restricted import.
          { name: '@nestjs/microservices', importNames: ['MessagePattern'], message: 'A request handler is @HandlesRequest(pattern) (libs/contracts), checked against the request registry.' },
        ],
      },
    ],
    'no-restricted-syntax': [
      'error',
      ...TYPED_REQUESTS,
      {
        selector: 'CallExpression[callee.property.name=/^(query|createQueryBuilder|getRepository|transaction)$/]',
        message: `A query, query builder, repository or transaction call ${STORE_ONLY} (a unit of work: Transactions.run).`,
      },
    ],
  },
});
/**
 * A request's message and answer come from the request registry (libs/contracts/src/requests): a type
 * argument or a cast would overrule it, so a wrong answer type would compile.
 */
const REQUEST_CALL = 'CallExpression[callee.property.name=/^request(Json)?$/]';
const TYPED_REQUESTS = [
  { selector: `${REQUEST_CALL}[typeArguments]`, message: 'A request takes its types from the request registry: no type argument.' },
  { selector: `TSAsExpression > ${REQUEST_CALL}, TSAsExpression > AwaitExpression > ${REQUEST_CALL}`, message: 'A request answers the type of the request registry: no cast.' },
];

/** The apps whose every statement is in a store. */
const SEAMED_APPS = ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-console': 'error',
    },
  },
  { files: ['**/*.{ts,tsx,js,mjs}'], ...walls },
  { files: ['apps/**/*.ts', 'libs/**/*.ts'], ignores: ['libs/transport/**'], rules: { 'no-restricted-syntax': ['error', ...TYPED_REQUESTS] } },
  ...SEAMED_APPS.map(persistenceSeam),
  {
    // The console runs in the browser.
    files: ['apps/console/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Plain Node scripts (benchmarks, fault tests).
    files: ['bench/**/*.mjs', 'faults/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
    rules: { 'no-console': 'off' },
  },
  {
    files: ['scripts/**/*.js', 'jest.config.js', 'test/support/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
