// ESLint for every file we write: the TypeScript of services, shared libraries, tools, tests and
// the console's browser modules (typescript-eslint's recommended rules), and the plain JavaScript of
// scripts, benchmarks, the site tag and the API reference's start-up. Types are checked by tsc
// (npm run typecheck); this catches what types do not.
// Every regular expression is linted by eslint-plugin-regexp (its recommended set, and the two
// rules that find super-linear backtracking as errors everywhere): a pattern that can take
// quadratic time on crafted input is a way for one request to stall a service (docs/decisions/security-and-trust.md).
// The dependency rules between packages (docs/decisions/runtime-and-tooling.md) are at the end: services stand alone, shared
// packages never reach into a service, the leaf packages stay free of infrastructure, and inside a
// package the domain never imports the data layer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import js from '@eslint/js';
import globals from 'globals';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const GROUPS = ['shared', 'services', 'tools'];

/** The workspace packages: { group, dir, name } for every shared/*, services/* and tools/* with a package.json. */
function workspacePackages() {
  return GROUPS.flatMap((group) =>
    fs
      .readdirSync(path.join(ROOT, group))
      .filter((dir) => fs.existsSync(path.join(ROOT, group, dir, 'package.json')))
      .map((dir) => ({ group, dir, name: JSON.parse(fs.readFileSync(path.join(ROOT, group, dir, 'package.json'), 'utf8')).name })),
  );
}
const PACKAGES = workspacePackages();

/**
 * The leaf packages: rules and shapes only (the public schemas and OpenAPI document, identifier and
 * event-name rules, scopes, configuration parsing, the error type). Anything may depend on them, so
 * they may depend on nothing with a connection, a process or a server behind it: no infrastructure
 * package, no workspace package but another leaf. @glimpse/errors names express's handler types
 * (type imports only, erased from its build).
 */
const LEAVES = ['@glimpse/api', '@glimpse/config', '@glimpse/errors', '@glimpse/validation'];
const TYPE_ONLY_INFRASTRUCTURE = { '@glimpse/errors': ['express'] };

/** npm packages that talk to the outside world or hold process-wide state (clients, servers, metrics, logs). */
const INFRASTRUCTURE = ['kafkajs', 'ioredis', 'pg', 'pg-copy-streams', '@prisma/[^/]+', 'prisma', 'express', 'undici', 'prom-client', 'pino'];
/** Node's I/O modules: a leaf computes, it does not open files, sockets or processes. */
const NODE_IO = ['fs', 'fs/promises', 'net', 'tls', 'dgram', 'http', 'https', 'http2', 'child_process', 'cluster', 'worker_threads'];

/**
 * Each service's Prisma client holds only its schema's models (@glimpse/db/<schema>, the subpaths
 * @glimpse/db exports); a package may import the client of its own schema alone, so another
 * service's tables stay out of reach. The gateway's shared/auth works on the identity schema.
 */
const DB_CLIENTS = Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'shared', 'db', 'package.json'), 'utf8')).exports)
  .filter((subpath) => subpath !== '.')
  .map((subpath) => subpath.slice(2));
const OWN_DB_CLIENT = {
  '@glimpse/gateway': 'identity',
  '@glimpse/auth': 'identity',
  '@glimpse/playbook': 'playbook',
  '@glimpse/enrichment': 'enrichment',
  '@glimpse/webhooks': 'webhooks',
  '@glimpse/visitors': 'visitors',
};

const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A no-restricted-imports pattern for these package names and their subpaths (`pg`, `pg/lib/…`, never `pg-pool`). */
function packagesPattern(names, message, options = {}) {
  return { regex: `^(?:${names.join('|')})(?:/|$)`, message, ...options };
}

/** no-restricted-imports' options for the source files of one workspace package. */
function dependencyRestrictions(pkg) {
  const others = (group) => PACKAGES.filter((p) => p.group === group && p.name !== pkg.name).map((p) => escape(p.name));
  const patterns = [];
  if (pkg.group === 'shared' || pkg.group === 'services') {
    patterns.push(
      packagesPattern(
        [...others('services'), ...others('tools')],
        `a ${pkg.group === 'shared' ? 'shared package' : 'service'} must not import a service or a tool: services talk over HTTP and Kafka, and only tools and tests compose them`,
      ),
    );
  }
  const own = OWN_DB_CLIENT[pkg.name];
  const otherClients = DB_CLIENTS.filter((schema) => schema !== own);
  patterns.push({
    regex: `^@glimpse/db/(?:${otherClients.join('|')})$`,
    message: own
      ? `${pkg.name} uses the ${own} schema's Prisma client (@glimpse/db/${own}) only: another service's tables are that service's, reached over its API or its events`
      : `${pkg.name} owns no schema: it may not open a service's Prisma client`,
  });
  if (LEAVES.includes(pkg.name)) {
    const nonLeaves = PACKAGES.filter((p) => p.group === 'shared' && !LEAVES.includes(p.name)).map((p) => escape(p.name));
    patterns.push(packagesPattern(nonLeaves, `${pkg.name} is a leaf package: it may import only other leaves (${LEAVES.join(', ')}), never infrastructure`));
    const typeOnly = TYPE_ONLY_INFRASTRUCTURE[pkg.name] ?? [];
    const message = `${pkg.name} is a leaf package: no infrastructure (Kafka, Redis, Postgres/Prisma, HTTP servers and clients, metrics, logging)`;
    patterns.push(
      packagesPattern(
        INFRASTRUCTURE.filter((name) => !typeOnly.includes(name)),
        message,
      ),
    );
    if (typeOnly.length > 0) patterns.push(packagesPattern(typeOnly.map(escape), `${message}; types alone are allowed`, { allowTypeImports: true }));
    patterns.push({ regex: `^(?:node:)?(?:${NODE_IO.join('|')})$`, message: `${pkg.name} is a leaf package: no file, network or process I/O` });
  }
  return { patterns };
}

/** The workspace package (`shared/api`) an absolute path lies in, or null. */
function packageDirOf(file) {
  const match = /^(shared|services|tools)\/([^/]+)\//.exec(path.relative(ROOT, file).split(path.sep).join('/'));
  return match ? `${match[1]}/${match[2]}` : null;
}

/**
 * A relative import that leaves its package (`../../auth/src/credentials.js`) escapes the rules
 * above, which see package names: packages import each other by name.
 */
const noCrossPackageRelativeImports = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      crossPackage: "'{{source}}' reaches into {{target}}: import a workspace package by its name (@glimpse/…), never by a relative path",
    },
  },
  create(context) {
    const own = packageDirOf(context.filename);
    if (own === null) return {};
    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = packageDirOf(path.resolve(path.dirname(context.filename), source));
      if (target !== null && target !== own) context.report({ node: node.source, messageId: 'crossPackage', data: { source, target } });
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/**
 * The packages with a data layer (`src/data/`: SQL, Redis, the clients of other services). Their
 * domain is `src/domain/`, or, in a package without one (@glimpse/auth), the files of `src/` itself
 * but the entry (`index.ts`).
 */
const DATA_PACKAGES = PACKAGES.filter((p) => p.group !== 'tools' && fs.existsSync(path.join(ROOT, p.group, p.dir, 'src', 'data'))).map((p) => ({
  dir: `${p.group}/${p.dir}`,
  domainFolder: fs.existsSync(path.join(ROOT, p.group, p.dir, 'src', 'domain')),
}));

/** Which layer of its package a path is in: 'domain', 'data' (the data layer and the wiring that binds it), or null. */
function layerOf(file) {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const pkg = DATA_PACKAGES.find((p) => rel.startsWith(`${p.dir}/src/`));
  if (pkg === undefined) return null;
  const inner = rel.slice(`${pkg.dir}/src/`.length);
  if (/^(?:data|wiring)(?:\/|$)|^wiring\.[cm]?[jt]s$/.test(inner)) return { pkg: pkg.dir, layer: 'data', inner };
  if (pkg.domainFolder ? /^domain(?:\/|$)/.test(inner) : !inner.includes('/') && !/^index\./.test(inner)) return { pkg: pkg.dir, layer: 'domain', inner };
  return null;
}

/**
 * Domain code never imports the data layer, not even its types: a use case declares the store it
 * needs as an interface in the domain (playbook's `domain/batch-store.ts`, @glimpse/auth's
 * `CredentialStore`), `data/` implements it, and `wiring/` (or the start-up) binds the two. So the
 * rules read, and are tested, without a database, and a store can change without touching them.
 */
const domainNeverImportsData = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      dataFromDomain:
        "'{{source}}' is {{target}}, which domain code never imports: declare the store the use case needs as an interface in the domain, implement it in data/, and bind the two in wiring/ (or the start-up)",
    },
  },
  create(context) {
    const own = layerOf(context.filename);
    if (own === null || own.layer !== 'domain') return {};
    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = layerOf(path.resolve(path.dirname(context.filename), source));
      if (target !== null && target.pkg === own.pkg && target.layer === 'data') {
        context.report({ node: node.source, messageId: 'dataFromDomain', data: { source, target: `${target.pkg}/src/${target.inner}` } });
      }
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

const glimpsePlugin = {
  rules: { 'no-cross-package-relative-imports': noCrossPackageRelativeImports, 'domain-never-imports-data': domainNeverImportsData },
};

/**
 * One config per shared package and service, for its source files (tests excluded: they compose
 * the services they test). One each, because a later config's options for a rule replace an
 * earlier one's rather than adding to them.
 */
const dependencyRules = PACKAGES.filter((pkg) => pkg.group !== 'tools').map((pkg) => ({
  files: [`${pkg.group}/${pkg.dir}/src/**/*.{ts,js,mjs,cjs}`],
  ignores: ['**/*.test.ts', '**/__tests__/**'],
  plugins: { glimpse: glimpsePlugin },
  rules: {
    'no-restricted-imports': ['error', dependencyRestrictions(pkg)],
    'glimpse/no-cross-package-relative-imports': 'error',
    'glimpse/domain-never-imports-data': 'error',
  },
}));

/**
 * Async mistakes, caught with the types (typescript-eslint's type-checked rules) in production code:
 * a promise nobody awaits or handles (its rejection is an unhandled rejection, which ends a Node
 * process), a promise where a plain value is expected (an async callback to a timer or an event
 * listener, which drops it; a promise in an `if`, always truthy), and an `await` on what is not a
 * promise. The types come from one program of every package's sources (tsconfig.eslint.json, no
 * build needed) and the console's (tsconfig.console.json). Test files are left out to keep the
 * lint short: theirs (tsconfig.tests.json) would be a second program as large again.
 */
const TYPED_PROJECTS = ['tsconfig.eslint.json', 'services/gateway/tsconfig.console.json'];
const asyncMistakeRules = [
  {
    files: ['{services,shared,tools}/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    languageOptions: { parserOptions: { project: TYPED_PROJECTS, tsconfigRootDir: ROOT } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
];

/**
 * Short functions in production code: a warning past 60 lines, an error past 80 (blank lines and
 * comments not counted). A long function is split into named steps (plan-collected.ts folds its
 * messages through one per kind; app.ts builds each router in its own function). Two rules, because
 * one rule has one severity: the warning is ESLint's own rule under a second name. Tests and
 * generated code are left out.
 */
// An IIFE is not counted (the site tag is one, a scope that keeps its names off the page); its functions are.
const FUNCTION_LINES = { skipBlankLines: true, skipComments: true };
const sizePlugin = { rules: { 'max-lines-per-function': builtinRules.get('max-lines-per-function') } };
const functionLengthRules = [
  {
    files: ['{services,shared,tools}/*/src/**/*.{ts,js,mjs}'],
    ignores: ['**/*.test.ts', '**/__tests__/**', 'tools/client/src/api-types.ts'],
    plugins: { size: sizePlugin },
    rules: {
      'size/max-lines-per-function': ['warn', { ...FUNCTION_LINES, max: 60 }],
      'max-lines-per-function': ['error', { ...FUNCTION_LINES, max: 80 }],
    },
  },
];

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
  ...dependencyRules,
  ...asyncMistakeRules,
  ...functionLengthRules,
);
