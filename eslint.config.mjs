// @ts-check
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
    files: ['scripts/**/*.js', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
