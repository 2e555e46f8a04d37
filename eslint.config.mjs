// ESLint for every file we write: the TypeScript of services, shared libraries, tools, tests and
// the console's browser modules (typescript-eslint's recommended rules), and the plain JavaScript of
// scripts, benchmarks, the site tag and the API reference's start-up. Types are checked by tsc
// (npm run typecheck); this catches what types do not.
// Every regular expression is linted by eslint-plugin-regexp (its recommended set, and the two
// rules that find super-linear backtracking as errors everywhere): a pattern that can take
// quadratic time on crafted input is a way for one request to stall a service (issue 21).
import js from '@eslint/js';
import globals from 'globals';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'shared/db/src/generated/**', '.infra/**', 'artifacts/**', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  regexp.configs.recommended,
  {
    rules: {
      // The recommended set minus its rules of style alone (how a correct, linear pattern is
      // spelled: \w for [A-Za-z0-9_], the i flag, \d, (?:) for unused groups), which would rewrite
      // some eighty working patterns for no change in what they match.
      'regexp/prefer-w': 'off',
      'regexp/use-ignore-case': 'off',
      'regexp/prefer-d': 'off',
      'regexp/negation': 'off',
      'regexp/prefer-character-class': 'off',
      'regexp/no-useless-character-class': 'off',
      'regexp/no-unused-capturing-group': 'off',
      // Backtracking that grows with the input: a quantifier that can give back what another
      // takes (…/+$ tried from every slash), or a match attempt that scans to the end from every
      // start position. Errors, never warnings.
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
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
    // The API reference's start-up and the site tag run in the browser, as classic scripts.
    files: ['services/gateway/src/docs/**/*.js', 'services/gateway/src/tag/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
    rules: { 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
  {
    // The console's modules run in the browser, bundled into one script (src/http/console-bundle.ts).
    files: ['services/gateway/src/console/**/*.ts'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // The manifest tests walk rendered Kubernetes YAML, which has no types to name.
    files: ['deploy/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
