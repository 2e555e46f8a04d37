// POST /events end to end: gateway → Kafka → playbook service → Postgres, all real.
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { createPlaybook, listEnrollments, eventCatalog } from '@glimpse/playbook';
import { TOPICS } from '@glimpse/messaging';
import {
  closeTestDb,
  createTestAccount,
  postEvent,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  testSql,
  uniqueEmail,
  waitFor,
} from '../../../test/support/stack';
import { applicationColumns } from '../../../test/support/tables';
import { kafkaBrokers, redisUrl } from '../../../test/config';
import { rawCopiesOf, rawKeysOf } from '../../../test/support/raw-copies';
import type { RunningGateway } from '../src/start';

let gateway: RunningGateway;
let playbook: { stop(): Promise<void> };
let redis: Redis;

beforeAll(async () => {
  [gateway, playbook] = await Promise.all([startTestGateway(), startTestPlaybookService()]);
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), playbook?.stop()]);
  redis?.disconnect();
  await closeTestDb();
});

async function seen(accountId: string, name: string, count = 1) {
  return waitFor(async () => (await eventCatalog(testDb('playbook'), accountId)).find((e) => e.name === name && e.count >= count), {
    what: `${name} in the catalog`,
  });
}

describe('POST /events end to end', () => {
  it('when a valid event is posted, then it answers {ok:true}, keeps the raw copy in Redis for at most 24 h and adds the name to the catalog', async () => {
    const { accountId, token } = await createTestAccount();
    const email = uniqueEmail();
    const res = await postEvent(gateway.url, token, {
      event: 'signed_up',
      email: `  ${email.toUpperCase()} `,
      properties: { plan: 'pro', seats: 3, trial: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });

    const received = Date.now();
    const copies = await rawCopiesOf(redis, accountId);
    expect(copies).toHaveLength(1);
    const [copy] = copies;
    expect(copy).toMatchObject({ event: 'signed_up', email, properties: { plan: 'pro', seats: 3, trial: true } });
    // One stream per ten minutes of receipt, under the account's hash tag, gone at most 24 h after its copies came.
    const bucket = Math.floor(Date.parse(copy!.receivedAt) / 1000 / 600);
    expect(copy!.key).toBe(`glimpse:{a:${accountId}}:raw:${bucket}`);
    const ttl = await redis.ttl(copy!.key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400);
    expect(Number(await redis.call('EXPIRETIME', copy!.key)) * 1000).toBeLessThanOrEqual(Date.parse(copy!.receivedAt) + 86_400_000);
    expect(Date.parse(copy!.receivedAt)).toBeLessThanOrEqual(received);
    // Besides the stream, only the account's raw meta hash (counts, no event data).
    const meta = `glimpse:{a:${accountId}}:rawmeta`;
    expect(await rawKeysOf(redis, accountId)).toEqual([copy!.key, meta].sort());
    expect(JSON.stringify(await redis.hgetall(meta))).not.toContain(email);
    expect(await redis.ttl(meta)).toBeGreaterThan(0);

    const entry = await seen(accountId, 'signed_up');
    expect(entry.count).toBe(1);
  });

  it('when events.inbound and its dead-letter topic are described, then their settings purge a raw event within 24 h', async () => {
    // Kafka deletes a closed segment once its newest record is older than retention.ms; a segment
    // closes after segment.ms; deletions run every log.retention.check.interval.ms and the file goes
    // file.delete.delay.ms later. The sum is the longest a raw event can stay.
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
        resources: [TOPICS.eventsInbound, TOPICS.eventsDeadLetter].map((name) => ({
          type: 2,
          name,
          configNames: ['retention.ms', 'segment.ms', 'file.delete.delay.ms', 'message.timestamp.type'],
        })),
      });
      for (const r of resources) {
        const value = (name: string) => r.configEntries.find((c) => c.configName === name)?.configValue;
        const retention = Number(value('retention.ms'));
        expect(retention).toBeGreaterThan(0);
        expect(value('message.timestamp.type')).toBe('LogAppendTime');
        const longest = Number(value('segment.ms')) + retention + checkInterval + Number(value('file.delete.delay.ms'));
        expect(longest).toBeLessThanOrEqual(86_400_000);
      }
    } finally {
      await admin.disconnect();
    }
  });

  it('when an event carries properties, then no property value is stored anywhere in Postgres', async () => {
    const { accountId, token } = await createTestAccount();
    const marker = `secret-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const res = await postEvent(gateway.url, token, { event: 'quote_requested', email: uniqueEmail(), properties: { note: marker } });
    expect(res.status).toBe(200);
    await seen(accountId, 'quote_requested');

    const columns = await applicationColumns(testSql());
    expect(columns.length).toBeGreaterThan(50); // every column of every service's schema
    for (const { table, column, qualified } of columns) {
      const rows = await testSql().$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${qualified} WHERE "${column}"::text LIKE $1`, `%${marker}%`);
      expect({ table, column, n: Number(rows[0]!.n) }).toEqual({ table, column, n: 0 });
    }
  });

  it('when a playbook is triggered by the name, then the person is enrolled', async () => {
    const { accountId, token } = await createTestAccount();
    const email = uniqueEmail();
    await postEvent(gateway.url, token, { event: 'demo_booked', email: uniqueEmail() });
    await seen(accountId, 'demo_booked');
    const pb = await createPlaybook(testDb('playbook'), { accountId, name: 'Demo follow-up', triggers: ['demo_booked'] });

    expect((await postEvent(gateway.url, token, { event: 'demo_booked', email })).status).toBe(200);
    const enrollments = await waitFor(
      async () => {
        const list = await listEnrollments(testDb('playbook'), accountId, pb.id);
        return list.length > 0 && list;
      },
      { what: 'an enrollment' },
    );
    expect(enrollments).toEqual([expect.objectContaining({ email, status: 'active', startedBy: 'demo_booked', stoppedAt: null })]);
  });
});
