// Three projects: fast unit tests for pure rules (*.test.ts), integration tests (*.int.test.ts)
// against the real Kafka broker, Redis and Postgres that test/global-setup.ts brings up, and the
// short chaos run (test/chaos.int.test.ts). `npm test` runs the first two; `npm run test:chaos` the third.
const fs = require('node:fs');
const path = require('node:path');

// Workspace packages resolve to their TypeScript sources, so tests never run stale builds.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
for (const group of ['shared', 'services', 'tools']) {
  for (const dir of fs.readdirSync(path.join(__dirname, group))) {
    const pkg = path.join(__dirname, group, dir, 'package.json');
    if (!fs.existsSync(pkg)) continue;
    const { name } = JSON.parse(fs.readFileSync(pkg, 'utf8'));
    moduleNameMapper[`^${name}$`] = `<rootDir>/${group}/${dir}/src/index.ts`;
    // A subpath (@glimpse/db/playbook) is the module of that name at the top of src.
    moduleNameMapper[`^${name}/([\\w-]+)$`] = `<rootDir>/${group}/${dir}/src/$1.ts`;
  }
}

const common = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper,
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

const integration = {
  ...common,
  globalSetup: '<rootDir>/test/global-setup.ts',
  setupFiles: ['<rootDir>/test/test-env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/test-timeout.ts'],
  slowTestThreshold: 20,
};
const CHAOS_TEST = 'test/chaos.int.test.ts';

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/src/**/*.test.ts', '<rootDir>/test/unit/**/*.test.ts', '<rootDir>/deploy/test/**/*.test.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, '\\.int\\.test\\.ts$'],
    },
    {
      ...integration,
      displayName: 'integration',
      testMatch: ['<rootDir>/**/*.int.test.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, CHAOS_TEST],
    },
    // The short chaos run (about 4 to 7 minutes: its own three brokers, replicas and faults) is a
    // project of its own, so that `npm test` stays short: CI runs it after (`npm run test:chaos`).
    { ...integration, displayName: 'chaos', testMatch: [`<rootDir>/${CHAOS_TEST}`] },
  ],
};
