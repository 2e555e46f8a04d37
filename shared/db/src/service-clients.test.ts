// Each service's Prisma client holds exactly the models of its own Postgres schema (docs/decisions/deployment.md):
// the delegates a client has are the models prisma/schema.prisma puts in that schema, and reaching
// another service's table does not compile (the @ts-expect-error lines fail the typecheck the day a
// client holds a model it should not).
import fs from 'node:fs';
import path from 'node:path';
import * as identity from './identity';
import * as playbook from './playbook';
import * as enrichment from './enrichment';
import * as webhooks from './webhooks';
import * as visitors from './visitors';

const SCHEMA = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'prisma', 'schema.prisma'), 'utf8');

/** The model delegates (`enrollment`, `webhookDelivery` …) of the models schema.prisma puts in `schema` (an @@ignore'd model has none). */
function modelsOf(schema: string): string[] {
  return [...SCHEMA.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}$/gm)]
    .filter((m) => m[2]!.includes(`@@schema("${schema}")`) && !m[2]!.split('\n').some((line) => line.trim().startsWith('@@ignore')))
    .map((m) => m[1]![0]!.toLowerCase() + m[1]!.slice(1))
    .sort();
}

/** A client's model delegates: its own properties that are not Prisma's ($connect, _engine …). */
function delegatesOf(db: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = db; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) if (/^[a-z]/.test(name) && name !== 'constructor') names.add(name);
  }
  return [...names].filter((name) => typeof (db as Record<string, unknown>)[name] === 'object').sort();
}

const CLIENTS = { identity, playbook, enrichment, webhooks, visitors };
// Not connected: a client opens its pool on the first query.
const OPTIONS = { databaseUrl: 'postgresql://nobody@127.0.0.1:1/none', poolSize: 1 };

describe("each service's Prisma client", () => {
  it.each(Object.entries(CLIENTS))('the %s client has exactly the models of its schema', async (schema, client) => {
    const db = client.createDb(OPTIONS);
    try {
      expect(modelsOf(schema).length).toBeGreaterThan(0);
      expect(delegatesOf(db)).toEqual(modelsOf(schema));
    } finally {
      await db.$disconnect();
    }
  });

  it("another service's table is not in a client's type", async () => {
    const p = playbook.createDb(OPTIONS);
    const g = identity.createDb(OPTIONS);
    try {
      // @ts-expect-error the playbook client has no enrichment model
      expect(p.person).toBeUndefined();
      // @ts-expect-error nor a webhooks one
      expect(p.webhookDelivery).toBeUndefined();
      // @ts-expect-error the gateway's identity client has no playbook model
      expect(g.enrollment).toBeUndefined();
      expect(typeof p.enrollment.findMany).toBe('function');
      expect(typeof g.account.findMany).toBe('function');
    } finally {
      await Promise.all([p.$disconnect(), g.$disconnect()]);
    }
  });
});
