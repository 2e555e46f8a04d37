// The dependency rules of eslint.config.mjs, run through ESLint itself on deliberate bad
// imports: a leaf package (@glimpse/api, …) importing infrastructure, a service importing another
// service, a shared package importing a service, a relative path into another package, a domain
// file importing its package's data layer. And the tree as it is passes them.
//
// ESLint runs in a child process: it loads eslint.config.mjs with import(), which jest's CommonJS
// module runtime does not support.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const RULES = ['no-restricted-imports', 'glimpse/no-cross-package-relative-imports', 'glimpse/domain-never-imports-data'];

interface Finding {
  ruleId: string | null;
  message: string;
}

/**
 * Lints in ESLint with the dependency rules alone (ruleFilter): the other rules' findings on these
 * snippets are noise. The snippets are files no tsconfig holds, so the type-checked block's program
 * is switched off for them (the dependency rules need no types; the type-checked rules are filtered out).
 */
const LINT_SCRIPT = `
const { ESLint } = require('eslint');
const { cwd, rules, texts, dirs } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const eslint = new ESLint({
  cwd,
  ruleFilter: ({ ruleId }) => rules.includes(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { project: false, projectService: false } } },
});
(async () => {
  const out = { texts: [], dirs: null };
  for (const { code, filePath } of texts) {
    const [result] = await eslint.lintText(code, { filePath });
    out.texts.push(result.messages.map(({ ruleId, message }) => ({ ruleId, message })));
  }
  if (dirs.length > 0) {
    const results = await eslint.lintFiles(dirs);
    out.dirs = { files: results.length, findings: results.flatMap((r) => r.messages.map(({ ruleId, message }) => ({ file: r.filePath, ruleId, message }))) };
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(2); });
`;

function runEslint(
  texts: { code: string; filePath: string }[],
  dirs: string[] = [],
): { texts: Finding[][]; dirs: { files: number; findings: (Finding & { file: string })[] } | null } {
  const input = JSON.stringify({ cwd: ROOT, rules: RULES, texts, dirs });
  return JSON.parse(execFileSync(process.execPath, ['-e', LINT_SCRIPT], { cwd: ROOT, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
}

const BAD: { what: string; filePath: string; code: string; rule: string; says: RegExp }[] = [
  {
    what: '@glimpse/api imports @glimpse/auth',
    filePath: 'shared/api/src/bad.ts',
    code: "import { SCOPES } from '@glimpse/auth';\nexport const s = SCOPES;\n",
    rule: 'no-restricted-imports',
    says: /@glimpse\/api is a leaf package/,
  },
  {
    what: '@glimpse/api imports @glimpse/messaging',
    filePath: 'shared/api/src/bad.ts',
    code: "export { EVENT_NAME_PATTERN } from '@glimpse/messaging';\n",
    rule: 'no-restricted-imports',
    says: /leaf package/,
  },
  {
    what: '@glimpse/api imports kafkajs',
    filePath: 'shared/api/src/bad.ts',
    code: "import { Kafka } from 'kafkajs';\nexport const k = Kafka;\n",
    rule: 'no-restricted-imports',
    says: /no infrastructure/,
  },
  {
    what: '@glimpse/api imports a Prisma package',
    filePath: 'shared/api/src/bad.ts',
    code: "import { PrismaClient } from '@prisma/client';\nexport const p = PrismaClient;\n",
    rule: 'no-restricted-imports',
    says: /no infrastructure/,
  },
  {
    what: '@glimpse/validation imports ioredis',
    filePath: 'shared/validation/src/bad.ts',
    code: "import Redis from 'ioredis';\nexport const r = Redis;\n",
    rule: 'no-restricted-imports',
    says: /no infrastructure/,
  },
  {
    what: '@glimpse/validation reads files',
    filePath: 'shared/validation/src/bad.ts',
    code: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
    rule: 'no-restricted-imports',
    says: /no file, network or process I\/O/,
  },
  {
    what: '@glimpse/errors imports express itself (not its types)',
    filePath: 'shared/errors/src/bad.ts',
    code: "import express from 'express';\nexport const e = express;\n",
    rule: 'no-restricted-imports',
    says: /types alone are allowed/,
  },
  {
    what: 'a service imports another service',
    filePath: 'services/playbook/src/bad.ts',
    code: "import { startGateway } from '@glimpse/gateway';\nexport const s = startGateway;\n",
    rule: 'no-restricted-imports',
    says: /must not import a service/,
  },
  {
    what: 'a service imports a subpath of another service',
    filePath: 'services/webhooks/src/bad.ts',
    code: "import { x } from '@glimpse/visitors/dist/start.js';\nexport const s = x;\n",
    rule: 'no-restricted-imports',
    says: /must not import a service/,
  },
  {
    what: "a service opens another service's Prisma client",
    filePath: 'services/playbook/src/data/bad.ts',
    code: "import { createDb } from '@glimpse/db/enrichment';\nexport const c = createDb;\n",
    rule: 'no-restricted-imports',
    says: /uses the playbook schema's Prisma client \(@glimpse\/db\/playbook\) only/,
  },
  {
    what: "the gateway's auth package opens the webhooks client (types only)",
    filePath: 'shared/auth/src/bad.ts',
    code: "import type { Db } from '@glimpse/db/webhooks';\nexport type D = Db;\n",
    rule: 'no-restricted-imports',
    says: /uses the identity schema's Prisma client/,
  },
  {
    what: 'a shared package that owns no schema opens a client',
    filePath: 'shared/messaging/src/bad.ts',
    code: "import type { Db } from '@glimpse/db/identity';\nexport type D = Db;\n",
    rule: 'no-restricted-imports',
    says: /owns no schema/,
  },
  {
    what: 'a shared package imports a service (types only)',
    filePath: 'shared/messaging/src/bad.ts',
    code: "import type { RunningGateway } from '@glimpse/gateway';\nexport type G = RunningGateway;\n",
    rule: 'no-restricted-imports',
    says: /a shared package must not import a service/,
  },
  {
    what: 'a shared package imports a tool',
    filePath: 'shared/auth/src/bad.ts',
    code: "import { main } from '@glimpse/cli';\nexport const m = main;\n",
    rule: 'no-restricted-imports',
    says: /must not import a service or a tool/,
  },
  {
    what: 'a shared package reaches a service by a relative path',
    filePath: 'shared/auth/src/bad.ts',
    code: "import { startGateway } from '../../../services/gateway/src/start.js';\nexport const s = startGateway;\n",
    rule: 'glimpse/no-cross-package-relative-imports',
    says: /reaches into services\/gateway/,
  },
  {
    what: 'a service reaches another service by a relative path',
    filePath: 'services/playbook/src/http/bad.ts',
    code: "export * from '../../../gateway/src/start.js';\n",
    rule: 'glimpse/no-cross-package-relative-imports',
    says: /reaches into services\/gateway/,
  },
  {
    what: '@glimpse/api reaches @glimpse/auth by a relative path',
    filePath: 'shared/api/src/bad.ts',
    code: "import { SCOPES } from '../../auth/src/credentials.js';\nexport const s = SCOPES;\n",
    rule: 'glimpse/no-cross-package-relative-imports',
    says: /reaches into shared\/auth/,
  },
  {
    what: 'a domain file imports data',
    filePath: 'services/enrichment/src/domain/bad.ts',
    code: "import { findRecord } from '../data/person-repository.js';\nexport const f = findRecord;\n",
    rule: 'glimpse/domain-never-imports-data',
    says: /services\/enrichment\/src\/data\/person-repository\.js, which domain code never imports/,
  },
  {
    what: "a domain file imports a data layer's types",
    filePath: 'services/gateway/src/domain/bad.ts',
    code: "import type { RawEventStore } from '../data/raw-event-store.js';\nexport type R = RawEventStore;\n",
    rule: 'glimpse/domain-never-imports-data',
    says: /declare the store the use case needs as an interface in the domain/,
  },
  {
    what: 'a domain file in a subfolder re-exports data',
    filePath: 'services/visitors/src/domain/segments/bad.ts',
    code: "export * from '../../data/segment-sql.js';\n",
    rule: 'glimpse/domain-never-imports-data',
    says: /services\/visitors\/src\/data\/segment-sql\.js/,
  },
  {
    what: 'a domain file imports the wiring that binds the data layer',
    filePath: 'services/playbook/src/domain/bad.ts',
    code: "import { applyBatch } from '../wiring/batch.js';\nexport const a = applyBatch;\n",
    rule: 'glimpse/domain-never-imports-data',
    says: /services\/playbook\/src\/wiring\/batch\.js, which domain code never imports/,
  },
  {
    what: "@glimpse/auth's rules (src/ itself) import its data layer",
    filePath: 'shared/auth/src/bad.ts',
    code: "import { createCredentialStore } from './data/credential-store.js';\nexport const c = createCredentialStore;\n",
    rule: 'glimpse/domain-never-imports-data',
    says: /shared\/auth\/src\/data\/credential-store\.js/,
  },
];

const GOOD: { what: string; filePath: string; code: string }[] = [
  {
    what: '@glimpse/api imports zod, zod-to-openapi, a leaf and itself',
    filePath: 'shared/api/src/good.ts',
    code: "import { z } from 'zod';\nimport { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';\nimport { SCOPES, EVENT_NAME_PATTERN } from '@glimpse/validation';\nimport { siteSchema } from './sites.js';\nexport const all = [z, OpenAPIRegistry, SCOPES, EVENT_NAME_PATTERN, siteSchema];\n",
  },
  {
    what: '@glimpse/errors names express types',
    filePath: 'shared/errors/src/good.ts',
    code: "import type { ErrorRequestHandler } from 'express';\nexport type H = ErrorRequestHandler;\n",
  },
  {
    what: 'a service imports shared infrastructure, the API and npm clients',
    filePath: 'services/gateway/src/good.ts',
    code: "import { createAuthenticator } from '@glimpse/auth';\nimport { TOPICS } from '@glimpse/messaging';\nimport { eventInputSchema } from '@glimpse/api';\nimport Redis from 'ioredis';\nimport { Kafka } from 'kafkajs';\nimport { relay } from './data/internal-service.js';\nexport const all = [createAuthenticator, TOPICS, eventInputSchema, Redis, Kafka, relay];\n",
  },
  {
    what: 'a shared infrastructure package imports another and a leaf',
    filePath: 'shared/auth/src/good.ts',
    code: "import { createKafka } from '@glimpse/messaging';\nimport { isScope } from '@glimpse/validation';\nexport const all = [createKafka, isScope];\n",
  },
  {
    what: "a service opens its own schema's Prisma client and the service-neutral database helpers",
    filePath: 'services/webhooks/src/data/good.ts',
    code: "import { createDb } from '@glimpse/db/webhooks';\nimport { withAdvisoryLock } from '@glimpse/db';\nexport const all = [createDb, withAdvisoryLock];\n",
  },
  {
    what: "a service's integration test composes other services (tests are not held to the rules)",
    filePath: 'services/gateway/test/good.int.test.ts',
    code: "import { startPlaybook } from '@glimpse/playbook';\nexport const s = startPlaybook;\n",
  },
  {
    what: "a data file implements the domain's store interface",
    filePath: 'services/webhooks/src/data/good.ts',
    code: "import type { EndpointStore } from '../domain/endpoint-store.js';\nexport type E = EndpointStore;\n",
  },
  {
    what: 'the wiring binds a use case to its store',
    filePath: 'services/enrichment/src/wiring/good.ts',
    code: "import { visitorImportStore } from '../data/import-repository.js';\nimport { importVisitorLines } from '../domain/import-data.js';\nexport const all = [visitorImportStore, importVisitorLines];\n",
  },
  {
    what: "@glimpse/auth's wiring and entry import its data layer",
    filePath: 'shared/auth/src/wiring.ts',
    code: "import { createCredentialStore } from './data/credential-store.js';\nexport const c = createCredentialStore;\n",
  },
  {
    what: "a domain file's unit test reads the data layer (tests are not held to the rules)",
    filePath: 'services/visitors/src/domain/good.test.ts',
    code: "import { segmentMembersSql } from '../data/segment-sql';\nexport const s = segmentMembersSql;\n",
  },
  {
    what: 'an entry point uses both the domain and the data layer',
    filePath: 'services/gateway/src/http/good.ts',
    code: "import { acceptEvent } from '../domain/accept-event.js';\nimport { relay } from '../data/internal-service.js';\nexport const all = [acceptEvent, relay];\n",
  },
];

describe('the dependency rules (eslint.config.mjs)', () => {
  let texts: Finding[][];
  beforeAll(() => {
    texts = runEslint([...BAD, ...GOOD]).texts;
  }, 60_000);

  it.each(BAD.map((bad, i) => [bad.what, i] as const))('when %s, then the lint reports it', (_what, i) => {
    const bad = BAD[i]!;
    const findings = texts[i]!;
    expect(findings).toEqual([expect.objectContaining({ ruleId: bad.rule, message: expect.stringMatching(bad.says) })]);
  });

  it.each(GOOD.map((good, i) => [good.what, BAD.length + i] as const))('when %s, then the lint reports nothing', (_what, i) => {
    expect(texts[i]).toEqual([]);
  });
});

it('when the shared packages and services are linted as they are, then they keep the dependency rules', () => {
  const { dirs } = runEslint([], ['shared/*/src/**/*.{ts,js}', 'services/*/src/**/*.{ts,js}']);
  expect(dirs!.files).toBeGreaterThan(100);
  expect(dirs!.findings).toEqual([]);
}, 120_000);
