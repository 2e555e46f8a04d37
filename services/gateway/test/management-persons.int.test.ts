// Suppression and erasure end to end through the management API: gateway → playbook service,
// Redis, the webhooks, visitors and enrichment services; events posted to the gateway and applied
// by the real consumers; the erasure scan reads every textual column of Postgres, every Redis key
// and value, and every Kafka topic.
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { generatePerson, importPersons, importVisitors } from '@glimpse/enrichment';
import { ERASED_EMAIL_PATTERN, TOPIC_DEFINITIONS, createErasedEmail } from '@glimpse/messaging';
import { DEV_ERASURE_KEY, eventCatalog } from '@glimpse/playbook';
import { closeTestDb, postEvent, request, sendNamesOnce, startManagementStack, testDb, testSql, uniqueEmail, waitFor } from '../../../test/support/stack';
import { applicationColumns } from '../../../test/support/tables';
import { kafkaBrokers, redisUrl } from '../../../test/config';
import { rawKeysOf } from '../../../test/support/raw-copies';
import { endOffsets, testKafka, type Offsets } from '../../../test/support/kafka-helpers';
import { ISO_TIME, api, createManager, type Api, type Manager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
let redis: Redis;
beforeAll(async () => {
  stack = await startManagementStack({}, { webhooks: true });
  redis = new Redis(redisUrl());
});
afterAll(async () => {
  await stack?.stop();
  redis?.disconnect();
  await closeTestDb();
});

async function send(manager: Manager, email: string, ...events: string[]) {
  const db = testDb('playbook');
  const before = await db.processedEvent.count({ where: { accountId: manager.accountId } });
  for (const event of events)
    expect((await postEvent(stack.gateway.url, manager.token, { event, email, properties: { note: `about ${email}` } })).status).toBe(200);
  await waitFor(async () => (await db.processedEvent.count({ where: { accountId: manager.accountId } })) >= before + events.length, { what: 'events applied' });
}

async function setUp() {
  const manager = await createManager();
  const client = api(stack.gateway.url, manager.key);
  await sendNamesOnce(stack.gateway.url, manager, ['signed_up', 'demo_booked']);
  const welcome = (await client.post('/account/playbooks', { name: 'Welcome', triggers: ['signed_up'], exits: ['purchase'] })).body.id as string;
  const demo = (await client.post('/account/playbooks', { name: 'Demo', triggers: ['demo_booked'] })).body.id as string;
  return { manager, client, welcome, demo };
}

const enrollmentsOf = async (client: Api, playbookId: string, email: string) =>
  ((await client.get(`/account/playbooks/${playbookId}/enrollments`)).body.items as { email: string; status: string; stoppedBy: string | null }[])
    .filter((e) => e.email === email)
    .map((e) => [e.status, e.stoppedBy]);

const catalogCount = async (accountId: string, name: string) => (await eventCatalog(testDb('playbook'), accountId)).find((e) => e.name === name)?.count ?? 0;

describe('management API: suppressions', () => {
  it('when a person is suppressed, then their active enrollments stop (suppressed), their events are counted but start nothing, until the suppression is lifted', async () => {
    const { manager, client, welcome, demo } = await setUp();
    const email = uniqueEmail('supp');
    await send(manager, email, 'signed_up');
    expect(await enrollmentsOf(client, welcome, email)).toEqual([['active', null]]);

    const res = await client.post('/account/suppressions', { email: ` ${email.toUpperCase()} ` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), email, createdAt: expect.stringMatching(ISO_TIME), stoppedEnrollments: 1 });
    expect(await enrollmentsOf(client, welcome, email)).toEqual([['stopped', 'suppressed']]);
    const again = await client.post('/account/suppressions', { email });
    expect(again).toMatchObject({ status: 200, body: { id: res.body.id, stoppedEnrollments: 0 } });
    expect((await client.get('/account/suppressions')).body).toEqual({ items: [{ id: res.body.id, email, createdAt: res.body.createdAt }], nextCursor: null });

    const before = await catalogCount(manager.accountId, 'demo_booked');
    await send(manager, email, 'signed_up', 'demo_booked');
    await waitFor(async () => (await catalogCount(manager.accountId, 'demo_booked')) === before + 1, { what: 'the catalog counting the event' });
    expect(await enrollmentsOf(client, welcome, email)).toEqual([['stopped', 'suppressed']]);
    expect(await enrollmentsOf(client, demo, email)).toEqual([]);
    const dry = await client.post('/account/events/dry-run', { event: 'demo_booked', email });
    expect(dry.body.playbooks).toEqual([{ id: demo, name: 'Demo', outcome: 'none', reason: 'suppressed' }]);

    expect((await client.del(`/account/suppressions/${encodeURIComponent(email)}`)).status).toBe(204);
    expect((await client.del(`/account/suppressions/${encodeURIComponent(email)}`)).status).toBe(404);
    expect((await client.get('/account/suppressions')).body.items).toEqual([]);
    await send(manager, email, 'demo_booked');
    expect(await enrollmentsOf(client, demo, email)).toEqual([['active', null]]);
  });

  it('when suppressions are listed with a limit, then the cursor walks them newest first; other accounts see none of them', async () => {
    const { client } = await setUp();
    const emails = [uniqueEmail('s1'), uniqueEmail('s2'), uniqueEmail('s3')];
    for (const email of emails) expect((await client.post('/account/suppressions', { email })).status).toBe(201);
    const first = await client.get('/account/suppressions?limit=2');
    expect(first.body.items.map((s: { email: string }) => s.email)).toEqual([emails[2], emails[1]]);
    const second = await client.get(`/account/suppressions?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ email: emails[0] })], nextCursor: null });
    const other = api(stack.gateway.url, (await createManager()).key);
    expect((await other.get('/account/suppressions')).body.items).toEqual([]);
    expect((await other.del(`/account/suppressions/${encodeURIComponent(emails[0]!)}`)).status).toBe(404);
  });

  it.each([
    [{ email: 'nope' }, 'email must be a valid email address'],
    [{}, 'email is required'],
    [{ email: 'a@example.com', note: 1 }, 'unknown field(s): note'],
  ])('when a suppression body is %p, then it is 400 and nothing is stored', async (body, message) => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const res = await client.post('/account/suppressions', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
    expect(await testDb('playbook').suppression.count({ where: { accountId: manager.accountId } })).toBe(0);
  });
});

/** Every text, varchar and json column of every table in which `needle` appears, as table.column. */
async function postgresHolding(needle: string): Promise<string[]> {
  const db = testSql();
  const columns = await applicationColumns(db, { textual: true });
  expect(columns.length).toBeGreaterThan(20); // the scan does see the services' schemas
  const found: string[] = [];
  for (const { table, column, qualified } of columns) {
    const [row] = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${qualified} WHERE "${column}"::text ILIKE '%' || $1 || '%'`, needle);
    if (Number(row!.n) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** Every Redis key whose name or value holds `needle` (a batch of keys read in two pipelines: types, then values). */
async function redisHolding(needle: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    if (keys.length === 0) continue;
    const types = ((await keys.reduce((p, key) => p.type(key), redis.pipeline()).exec()) ?? []).map(([, t]) => t as string);
    const reads = redis.pipeline();
    keys.forEach((key, i) => {
      const type = types[i];
      if (type === 'string') reads.get(key);
      else if (type === 'zset') reads.zrange(key, 0, -1);
      else if (type === 'hash') reads.hgetall(key);
      else if (type === 'list') reads.lrange(key, 0, -1);
      else if (type === 'set') reads.smembers(key);
      // Raw copies: an entry's fields and values.
      else if (type === 'stream') reads.xrange(key, '-', '+');
      else reads.exists(key);
    });
    const values = ((await reads.exec()) ?? []).map(([, v]) => v);
    keys.forEach((key, i) => {
      const v = values[i];
      const texts =
        types[i] === 'stream'
          ? (v as [string, string[]][]).flatMap(([, fields]) => fields)
          : types[i] === 'hash'
            ? Object.entries((v ?? {}) as Record<string, string>).flat()
            : Array.isArray(v)
              ? (v as string[])
              : typeof v === 'string'
                ? [v]
                : [];
      if ([key, ...texts].some((t) => t.toLowerCase().includes(needle))) found.push(key);
    });
  } while (cursor !== '0');
  return found;
}

const TOPICS_ALL = Object.values(TOPIC_DEFINITIONS).map((t) => t.name);
const DAY_MS = 86_400_000;

/** Every topic's end offsets now. */
async function allEndOffsets(): Promise<Map<string, Offsets>> {
  return new Map(await Promise.all(TOPICS_ALL.map(async (t) => [t, await endOffsets(t)] as const)));
}

/** Every message of every topic between the two sets of offsets, with one reader (no group commits). */
async function readRange(from: Map<string, Offsets>, to: Map<string, Offsets>): Promise<{ topic: string; key: string; value: string }[]> {
  const pending = new Map<string, bigint>();
  for (const [topic, ends] of to)
    for (const [partition, end] of ends) if (BigInt(end) > BigInt(from.get(topic)!.get(partition) ?? '0')) pending.set(`${topic}/${partition}`, BigInt(end));
  const read: { topic: string; key: string; value: string }[] = [];
  if (pending.size === 0) return read;
  const consumer = testKafka().consumer({
    groupId: `glimpse-test-reader-${randomUUID()}`,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6000,
    heartbeatInterval: 1000,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: TOPICS_ALL, fromBeginning: false });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        const end = pending.get(`${topic}/${partition}`);
        const offset = BigInt(message.offset);
        if (end === undefined || offset < BigInt(from.get(topic)!.get(partition) ?? '0') || offset >= end) return;
        read.push({ topic, key: message.key?.toString('utf8') ?? '', value: message.value?.toString('utf8') ?? '' });
        if (offset + 1n >= end) pending.delete(`${topic}/${partition}`);
        if (pending.size === 0) finish();
      },
    });
    for (const [topic, offsets] of from) for (const [partition, offset] of offsets) consumer.seek({ topic, partition, offset });
    await waitFor(async () => pending.size === 0 || undefined, { what: 'Kafka read up to the offsets', timeoutMs: 30_000 });
    await finished;
    return read;
  } finally {
    await consumer.disconnect();
  }
}

/** The topics with a message (key or value) between the two sets of offsets that holds `needle`, and how many messages of the account the range has. */
async function kafkaHolding(
  from: Map<string, Offsets>,
  to: Map<string, Offsets>,
  needle: string,
  accountId: string,
): Promise<{ topics: string[]; accountMessages: number }> {
  const messages = await readRange(from, to);
  const topics = [...new Set(messages.filter((m) => `${m.key}\n${m.value}`.toLowerCase().includes(needle)).map((m) => m.topic))].sort();
  return { topics, accountMessages: messages.filter((m) => m.key.includes(accountId) || m.value.includes(accountId)).length };
}

/** How long the broker may keep a message of each topic at most: segment.ms + retention.ms + the retention check interval + file.delete.delay.ms. */
async function longestKept(topics: string[]): Promise<Record<string, { ms: number; timestampType: string }>> {
  const admin = new Kafka({ brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { brokers } = await admin.describeCluster();
    const brokerConfigs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: brokers.map((b) => ({ type: 4, name: String(b.nodeId), configNames: ['log.retention.check.interval.ms'] })),
    });
    const checkInterval = Math.max(...brokerConfigs.resources.map((r) => Number(r.configEntries[0]?.configValue)));
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: 2, name, configNames: ['retention.ms', 'segment.ms', 'file.delete.delay.ms', 'message.timestamp.type'] })),
    });
    return Object.fromEntries(
      resources.map((r) => {
        const value = (name: string) => Number(r.configEntries.find((c) => c.configName === name)?.configValue);
        const timestampType = r.configEntries.find((c) => c.configName === 'message.timestamp.type')?.configValue ?? '';
        return [r.resourceName, { ms: value('segment.ms') + value('retention.ms') + checkInterval + value('file.delete.delay.ms'), timestampType }];
      }),
    );
  } finally {
    await admin.disconnect();
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ORIGIN = 'https://erasure.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36';
let collected = 0;
const messageId = (p: string) => `${p}_${Date.now().toString(36)}${(collected++).toString(36).padStart(4, '0')}`;

async function* lines(values: unknown[]) {
  for (const v of values) yield JSON.stringify(v);
}

describe('management API: erasure', () => {
  it("when a person is erased, then their enrollments stop, and the email is in no column of Postgres but the operator's dataset, no key or value of Redis, no Kafka message written after it (earlier ones expire within 24 h), while the counts stay", async () => {
    const kafkaStart = await allEndOffsets();
    const { manager, client, welcome, demo } = await setUp();
    // A webhook endpoint, so the person's effects and identification are also recorded as
    // deliveries by the webhooks service (a closed loopback port: every attempt fails and stays recorded).
    const endpoint = await client.post('/account/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['enrollment.started', 'enrollment.stopped', 'visitor.identified'],
    });
    expect(endpoint.status).toBe(201);
    const email = uniqueEmail('erase');
    const bystander = uniqueEmail('stays');
    // Both are persons of the operator's enrichment dataset; the account imported a visitor of each
    // (enrichment), the bystander's page views naming the person.
    const [person, other] = [generatePerson(0, Date.now() % 1e9), generatePerson(1, Date.now() % 1e9)];
    person.traits.work_email = email;
    other.traits.work_email = bystander;
    expect(await importPersons(lines([person, other]), { db: testDb('enrichment'), defaultPhoneRegion: 'US' })).toMatchObject({ imported: 2 });
    const stamp = Date.now().toString(16).slice(-8).padStart(8, '0');
    const [importedVisitor, importedBystander] = [`${'a1'.repeat(8)}${stamp}`, `${'b2'.repeat(8)}${stamp}`];
    expect(
      await importVisitors(
        lines([
          { visitorId: importedVisitor, email },
          { visitorId: importedBystander, email: bystander, pages: [`/team/${email}`] },
        ]),
        manager.accountId,
        { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
      ),
    ).toMatchObject({ imported: 2 });
    // And the site tag saw the person: a page view, then an identify (visitors service).
    const site = (await client.post('/account/sites', { name: 'Erasure', origins: [ORIGIN] })).body as { key: string };
    const collect = (events: unknown[], vid?: string) =>
      request(`${stack.gateway.url}/collect`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': BROWSER },
        body: JSON.stringify({ site: site.key, ...(vid ? { vid } : {}), events }),
      });
    const vid = (await collect([{ type: 'pageview', id: messageId('pv'), url: `${ORIGIN}/signup`, path: '/signup' }])).body.vid as string;
    expect((await collect([{ type: 'identify', id: messageId('id'), email, path: '/signup' }], vid)).status).toBe(200);

    await send(manager, email, 'signed_up', 'purchase', 'signed_up', 'demo_booked');
    await send(manager, bystander, 'signed_up');
    expect((await client.post('/account/suppressions', { email })).status).toBe(201);
    await waitFor(async () => (await testDb('playbook').playbookEffect.count({ where: { accountId: manager.accountId, publishedAt: null } })) === 0, {
      what: 'effects published',
    });
    const effectsOf = await testDb('playbook').playbookEffect.count({ where: { accountId: manager.accountId } });
    await waitFor(async () => (await testDb('webhooks').webhookDelivery.count({ where: { endpointId: endpoint.body.id } })) === effectsOf + 1, {
      what: 'every effect and the identification recorded as a delivery',
      timeoutMs: 60_000,
    });
    expect(await postgresHolding(email)).toEqual(
      expect.arrayContaining([
        'enrollments.email',
        'playbook_effects.email',
        'suppressions.email',
        'webhook_deliveries.payload',
        'identity_links.email',
        'visitor_profiles.email',
        'identities.value',
        'persons.record',
      ]),
    );
    // The unkeyed hash of account and email (the old stand-in, and the deliveries' order key) is found too.
    expect(await postgresHolding(sha256(`${manager.accountId}:${email}`))).toEqual(['webhook_deliveries.person_key']);
    expect((await redisHolding(email)).length).toBeGreaterThan(0);
    const kafkaBefore = await allEndOffsets();
    // Every topic that carries a person's email had it: the scan does see them.
    const earlier = await kafkaHolding(kafkaStart, kafkaBefore, email, manager.accountId);
    expect(earlier.topics.sort()).toEqual(['events.inbound', 'playbook.effects', 'visitors.collected', 'visitors.identified']);
    const counts = async () => ({
      enrollments: await testDb('playbook').enrollment.count({ where: { accountId: manager.accountId } }),
      effects: await testDb('playbook').playbookEffect.count({ where: { accountId: manager.accountId } }),
    });
    const before = await counts();

    const res = await client.del(`/account/persons/${encodeURIComponent(email.toUpperCase())}`);
    expect(res.status).toBe(200);
    // Suppressing stopped the two active enrollments already, each with a stop effect (cause
    // "suppressed"): erasure stops none, hashes the three enrollments and the six effects (start,
    // stop, start; start; the two suppression stops) and their six deliveries and the identification's.
    expect(res.body).toEqual({
      stoppedEnrollments: 0,
      hashedEnrollments: 3,
      hashedEffects: 6,
      deletedSuppressions: 1,
      deletedRawEvents: 4,
      hashedDeliveries: 7,
      deletedVisitors: 1,
      deletedVisitorLinks: 1,
      deletedImportedVisitors: 1,
      hashedImportedVisitors: 1,
    });

    // Only the operator's dataset of persons (not the account's data) still names the person.
    expect(await postgresHolding(email)).toEqual(['identities.value', 'persons.details', 'persons.record']);
    expect(await postgresHolding(sha256(`${manager.accountId}:${email}`))).toEqual([]);
    expect(await redisHolding(email)).toEqual([]);
    // Nor in an entry only marked deleted: each of the account's streams holds just what it lists.
    for (const key of await rawKeysOf(redis, manager.accountId)) {
      if (!key.includes(':raw:')) continue;
      const info = (await redis.call('XINFO', 'STREAM', key)) as unknown[];
      const field = (name: string) => Number(info[info.indexOf(name) + 1]);
      expect({ key, added: field('entries-added') }).toEqual({ key, added: field('length') });
    }
    expect(await counts()).toEqual(before);
    const standIn = createErasedEmail(DEV_ERASURE_KEY)(manager.accountId, email);
    expect((await client.get(`/account/playbooks/${welcome}/enrollments`)).body.items.map((e: { email: string }) => e.email)).toEqual(
      expect.arrayContaining([bystander, standIn]),
    );
    expect(standIn).toMatch(ERASED_EMAIL_PATTERN);
    // The bystander's data is untouched (their imported visitor's page views now name the stand-in).
    expect(await postgresHolding(bystander)).toEqual(expect.arrayContaining(['enrollments.email', 'playbook_effects.email']));
    expect((await client.get('/account/events/recent')).body.items.map((e: { email: string }) => e.email)).toContain(bystander);
    expect(
      (await testDb('enrichment').visitor.findUnique({ where: { accountId_id: { accountId: manager.accountId, id: importedBystander } } }))?.pageViews,
    ).toEqual({
      pages: [`/team/${standIn}`],
    });

    // Kafka: the account goes on (the bystander buys, the erased person's old device views a page);
    // no message written from the erasure on names the email, while the account's messages flow.
    await send(manager, bystander, 'purchase');
    expect((await collect([{ type: 'pageview', id: messageId('pv'), url: `${ORIGIN}/pricing`, path: '/pricing' }], vid)).status).toBe(200);
    await waitFor(async () => (await testDb('playbook').playbookEffect.count({ where: { accountId: manager.accountId, publishedAt: null } })) === 0, {
      what: 'effects published',
    });
    await waitFor(async () => (await testDb('webhooks').webhookDelivery.count({ where: { endpointId: endpoint.body.id } })) === effectsOf + 2, {
      what: "the bystander's stop recorded as a delivery",
      timeoutMs: 60_000,
    });
    const later = await kafkaHolding(kafkaBefore, await allEndOffsets(), email, manager.accountId);
    expect(later.topics).toEqual([]);
    expect(later.accountMessages).toBeGreaterThanOrEqual(3); // events.inbound, playbook.effects, visitors.collected
    // Messages written before the erasure are not rewritten (Kafka has no such thing): every topic
    // that carried the email deletes them within 24 h of their writing, by the broker's clock.
    const kept = await longestKept(earlier.topics);
    for (const topic of earlier.topics)
      expect({ topic, ...kept[topic]!, withinADay: kept[topic]!.ms <= DAY_MS }).toEqual({
        topic,
        ms: kept[topic]!.ms,
        timestampType: 'LogAppendTime',
        withinADay: true,
      });

    // Erasing again finds nothing; the person's later events are a new person.
    expect((await client.del(`/account/persons/${encodeURIComponent(email)}`)).body).toEqual({
      stoppedEnrollments: 0,
      hashedEnrollments: 0,
      hashedEffects: 0,
      deletedSuppressions: 0,
      deletedRawEvents: 0,
      hashedDeliveries: 0,
      deletedVisitors: 0,
      deletedVisitorLinks: 0,
      deletedImportedVisitors: 0,
      hashedImportedVisitors: 0,
    });
    expect(await enrollmentsOf(client, demo, email)).toEqual([]);
  }, 240_000);

  it('when a person with active enrollments is erased, then they stop with the reason erased', async () => {
    const { manager, client } = await setUp();
    const email = uniqueEmail('active');
    await send(manager, email, 'signed_up', 'demo_booked');
    const res = await client.del(`/account/persons/${encodeURIComponent(email)}`);
    expect(res.body).toMatchObject({ stoppedEnrollments: 2, hashedEnrollments: 2, deletedRawEvents: 2 });
    const rows = await testDb('playbook').enrollment.findMany({ where: { accountId: manager.accountId, email: { startsWith: 'erased:' } } });
    expect(rows.map((r) => [r.status, r.stoppedBy])).toEqual([
      ['stopped', 'erased'],
      ['stopped', 'erased'],
    ]);
    expect((await client.del('/account/persons/not-an-email')).status).toBe(400);
  });
});
