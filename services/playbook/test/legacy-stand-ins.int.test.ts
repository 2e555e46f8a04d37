// The migration 20261130100000_erasure_stand_ins on rows erased before it: every unkeyed
// sha256:<sha256(accountId:email)> (and the delivery person keys derived from the email or from that
// value) becomes one random erased:<64 hex> per person, the same in enrollments, effects and
// delivery payloads; the legacy erasure tombstones go; nobody else's rows change; a second run
// changes nothing.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ERASED_EMAIL_PATTERN } from '@glimpse/messaging';
import { createPlaybook } from '@glimpse/playbook';
import { closeTestDb, testDb, uniqueEmail } from '../../../test/support/stack';
import { testDatabaseUrl } from '../../../test/config';

const MIGRATION = fs.readFileSync(path.join(__dirname, '../../../prisma/migrations/20261130100000_erasure_stand_ins/migration.sql'), 'utf8');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

afterAll(closeTestDb);

async function runMigration(): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(MIGRATION);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** An account with a person erased the old way (two enrollments, two effects, two deliveries, a tombstone) and a live bystander. */
async function legacyErasure() {
  const db = testDb('playbook');
  const accountId = randomUUID();
  const [erased, bystander] = [uniqueEmail('legacy'), uniqueEmail('live')];
  const legacy = `sha256:${sha256(`${accountId}:${erased}`)}`;
  const playbookId = (await createPlaybook(db, { accountId, name: 'Legacy', triggers: [], exits: [] })).id;
  const enrollment = (email: string, status: string) => ({
    playbookId,
    accountId,
    email,
    status,
    startedAt: new Date(),
    startedBy: 'signed_up',
    startEventId: randomUUID(),
  });
  await db.enrollment.createMany({ data: [enrollment(legacy, 'stopped'), enrollment(legacy, 'stopped'), enrollment(bystander, 'active')] });
  const effect = (email: string) => ({
    id: randomUUID(),
    eventId: randomUUID(),
    accountId,
    playbookId,
    email,
    action: 'started',
    eventName: 'signed_up',
    at: new Date(),
  });
  const effects = [effect(legacy), effect(legacy), effect(bystander)];
  await db.playbookEffect.createMany({ data: effects });
  await db.erasure.create({ data: { accountId, emailHash: legacy, erasedAt: new Date() } });
  const endpoint = await testDb('webhooks').webhookEndpoint.create({
    data: { accountId, url: 'https://example.com/hooks', events: ['enrollment.started', 'enrollment.stopped'], secret: 'whsec_test' },
  });
  const delivery = (email: string, personKey: string, effectId: string) => ({
    endpointId: endpoint.id,
    effectId,
    personKey,
    type: 'enrollment.started',
    payload: JSON.stringify({ type: 'enrollment.started', data: { effectId, email, playbookId } }),
    nextAttemptAt: new Date(),
    expiresAt: new Date(Date.now() + 86_400_000),
  });
  await testDb('webhooks').webhookDelivery.createMany({
    data: [
      // An effect of the person before the erasure (its key from the email), then the erasure's stop (its key from the legacy value).
      delivery(legacy, sha256(`${accountId}:${erased}`), effects[0]!.id),
      delivery(legacy, sha256(`${accountId}:${legacy}`), effects[1]!.id),
      delivery(bystander, sha256(`${accountId}:${bystander}`), effects[2]!.id),
    ],
  });
  return { accountId, endpointId: endpoint.id, erased, bystander, legacy };
}

async function rowsOf(accountId: string, endpointId: string) {
  const db = testDb('playbook');
  return {
    enrollments: (await db.enrollment.findMany({ where: { accountId }, orderBy: { email: 'asc' } })).map((e) => e.email),
    effects: (await db.playbookEffect.findMany({ where: { accountId }, orderBy: { email: 'asc' } })).map((e) => e.email),
    deliveries: (await testDb('webhooks').webhookDelivery.findMany({ where: { endpointId }, orderBy: { seq: 'asc' } })).map((d) => ({
      email: JSON.parse(d.payload).data.email as string,
      personKey: d.personKey,
    })),
    tombstones: await db.erasure.count({ where: { accountId } }),
  };
}

describe('migration: legacy erasure hashes become random stand-ins', () => {
  it('when the migration runs, then each legacy hash becomes one random erased: value everywhere, derived keys follow, tombstones go, and the rest stays', async () => {
    const { accountId, endpointId, erased, bystander, legacy } = await legacyErasure();
    const other = await legacyErasure();

    await runMigration();

    const rows = await rowsOf(accountId, endpointId);
    const standIn = rows.effects.find((e) => e !== bystander)!;
    expect(standIn).toMatch(ERASED_EMAIL_PATTERN);
    expect(rows).toEqual({
      enrollments: [bystander, standIn, standIn].sort(),
      effects: [bystander, standIn, standIn].sort(),
      deliveries: [
        { email: standIn, personKey: sha256(`${accountId}:${standIn}`) },
        { email: standIn, personKey: sha256(`${accountId}:${standIn}`) },
        { email: bystander, personKey: sha256(`${accountId}:${bystander}`) },
      ],
      tombstones: 0,
    });
    // Nothing left that a guess of the email could be checked against.
    const text = JSON.stringify(rows);
    for (const trace of [legacy, legacy.slice('sha256:'.length), sha256(`${accountId}:${erased}`), sha256(`${accountId}:${legacy}`), erased])
      expect(text).not.toContain(trace);
    // Another person's legacy hash gets a stand-in of its own.
    expect((await rowsOf(other.accountId, other.endpointId)).effects).not.toContain(standIn);

    await runMigration();
    expect(await rowsOf(accountId, endpointId)).toEqual(rows);
  });
});
