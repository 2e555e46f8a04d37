// ESLint for every file we write: the TypeScript of services, shared libraries, tools and tests
// (typescript-eslint's recommended rules), and the plain JavaScript of scripts, benchmarks and the
// console. Types are checked by tsc (npm run typecheck); this catches what types do not.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'shared/db/src/generated/**', '.infra/**', 'artifacts/**', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      // `const crypto = require('node:crypto')` is the explicit form of a Node global, not a clash.
      'no-redeclare': ['error', { builtinGlobals: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  {
    // The console, the API reference's start-up and the site tag run in the browser, as classic scripts.
    files: ['services/gateway/src/console/**/*.js', 'services/gateway/src/docs/**/*.js', 'services/gateway/src/tag/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
    rules: { 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
  {
    // The manifest tests walk rendered Kubernetes YAML, which has no types to name.
    files: ['deploy/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
