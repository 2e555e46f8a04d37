// A deleted account's data leaves the enrichment schema: account.deleted on the accounts topic
// (produced here straight onto the real topic, as the identity outbox would) removes the account's
// visitors, usage (ledger and days), credit limit, credit leases and billed persons, and nothing of any other
// account. Messages that are no account event are skipped without stopping the consumer. Without
// Kafka the service is still ready and answers lookups, the consumer shown as degraded.
import { randomUUID } from 'node:crypto';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { TOPICS, type AccountEventMessage } from '@glimpse/messaging';
import { generatePerson, setCreditLimit, type RunningEnrichmentService } from '@glimpse/enrichment';
import { closeTestDb, request, startTestEnrichmentService, testDb, waitFor, type HttpResult } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { createTcpProxy } from '../../../test/support/tcp-proxy';
import { kafkaBrokers } from '../../../test/config';
import { importPersonRecords, importVisitorRows, randomObjectId, randomSeed } from './lookup-test-helpers';

const person = generatePerson(0, randomSeed());
const email = person.traits.work_email as string;
let service: RunningEnrichmentService;

beforeAll(async () => {
  expect(await importPersonRecords([person])).toMatchObject({ imported: 1, skipped: 0 });
  service = await startTestEnrichmentService();
});

afterAll(async () => {
  await service?.stop();
  await closeTestDb();
});

const lookup = (base: string, accountId: string): Promise<HttpResult> =>
  request(`${base}/internal/enrichment`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });

type Counts = Record<'visitors' | 'usage_ledger' | 'usage_days' | 'enrichment_credits' | 'credit_leases' | 'billed_persons', number>;

async function rowsOf(accountId: string): Promise<Counts> {
  const [row] = await testDb('enrichment').$queryRaw<Counts[]>`
    SELECT (SELECT count(*) FROM visitors WHERE account_id = ${accountId}::uuid)::int AS visitors,
           (SELECT count(*) FROM usage_ledger WHERE account_id = ${accountId}::uuid)::int AS usage_ledger,
           (SELECT count(*) FROM usage_days WHERE account_id = ${accountId}::uuid)::int AS usage_days,
           (SELECT count(*) FROM enrichment_credits WHERE account_id = ${accountId}::uuid)::int AS enrichment_credits,
           (SELECT count(*) FROM credit_leases WHERE account_id = ${accountId}::uuid)::int AS credit_leases,
           (SELECT count(*) FROM billed_persons WHERE account_id = ${accountId}::uuid)::int AS billed_persons`;
  return row!;
}

/** An account with a row in every table a deletion must empty: visitors, a credit limit, a lookup (a lease, a ledger row and the person billed for the month), and an earlier day rolled up. */
async function accountWithData(): Promise<{ accountId: string; counts: Counts }> {
  const accountId = randomUUID();
  expect(
    await importVisitorRows(accountId, [
      { visitorId: randomObjectId(), email },
      { visitorId: randomObjectId(), email },
    ]),
  ).toMatchObject({ imported: 2 });
  await setCreditLimit(testDb('enrichment'), accountId, 100);
  expect((await lookup(service.url, accountId)).status).toBe(200);
  await testDb('enrichment')
    .$executeRaw`INSERT INTO usage_days (account_id, day, identity_matches, enriched_records) VALUES (${accountId}::uuid, DATE '2026-01-01', 3, 3)`;
  const counts = await rowsOf(accountId);
  expect(counts).toEqual({ visitors: 2, usage_ledger: 1, usage_days: 1, enrichment_credits: 1, credit_leases: 1, billed_persons: 1 });
  return { accountId, counts };
}

const event = (type: AccountEventMessage['type'], accountId: string) => ({
  key: accountId,
  value: JSON.stringify({ type, accountId, at: new Date().toISOString() }),
});
const NONE: Counts = { visitors: 0, usage_ledger: 0, usage_days: 0, enrichment_credits: 0, credit_leases: 0, billed_persons: 0 };
const gone = (accountId: string, timeoutMs = 30_000) =>
  waitFor(async () => JSON.stringify(await rowsOf(accountId)) === JSON.stringify(NONE), { what: `account ${accountId}'s rows gone`, timeoutMs });

async function metric(base: string, name: string): Promise<number> {
  const text = (await request(`${base}/metrics`)).body as string;
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : 0;
}

it("when account.deleted arrives after messages that are no account event, then the account's visitors, usage, credit limit and leases are gone and another account's all stay", async () => {
  const deleted = await accountWithData();
  const kept = await accountWithData();

  // Same key, so the same partition: the deletion comes after the bad messages and is applied only if they were skipped.
  await produceRaw(TOPICS.accounts, [
    { key: deleted.accountId, value: 'not json' },
    { key: deleted.accountId, value: JSON.stringify({ type: 'account.renamed', accountId: deleted.accountId, at: new Date().toISOString() }) },
    event('account.created', kept.accountId),
    event('account.deleted', deleted.accountId),
  ]);
  await gone(deleted.accountId);

  expect(await rowsOf(kept.accountId)).toEqual(kept.counts);
  expect(await metric(service.url, 'glimpse_account_events_invalid_total')).toBeGreaterThanOrEqual(2);
  const ready = await request(`${service.url}/readyz`);
  expect({ status: ready.status, accounts: ready.body.checks.accounts }).toEqual({ status: 200, accounts: 'ok' });
});

it('when account.deleted arrives again, and for an account with nothing here, then nothing fails and the next deletion is applied', async () => {
  const first = await accountWithData();
  const second = await accountWithData();
  const kept = await accountWithData();
  await produceRaw(TOPICS.accounts, [event('account.deleted', first.accountId)]);
  await gone(first.accountId);

  await produceRaw(TOPICS.accounts, [
    event('account.deleted', first.accountId),
    event('account.deleted', randomUUID()),
    event('account.deleted', second.accountId),
  ]);
  await gone(second.accountId);
  // Deletions that found nothing were applied, not retried as failures.
  await waitFor(async () => (await metric(service.url, 'glimpse_account_events_applied_total{type="account.deleted"}')) >= 4, {
    what: 'every deletion applied',
  });
  expect(await metric(service.url, 'glimpse_account_events_failures_total')).toBe(0);
  expect(await rowsOf(kept.accountId)).toEqual(kept.counts);
});

it('when Kafka cannot be reached at start, then the service is ready with the accounts consumer degraded and answers lookups; once Kafka is reachable its consumer joins and applies deletions', async () => {
  const [host, port] = kafkaBrokers()[0]!.split(':') as [string, string];
  const proxy = await createTcpProxy({ host, port: Number(port) });
  const noKafka = await startTestEnrichmentService({ KAFKA_BROKERS: `127.0.0.1:${proxy.port}` });
  const applied = async () => metric(noKafka.url, 'glimpse_account_events_applied_total{type="account.deleted"}');
  try {
    const ready = await request(`${noKafka.url}/readyz`);
    expect({ status: ready.status, postgres: ready.body.checks.postgres }).toEqual({ status: 200, postgres: 'ok' });
    expect(ready.body.checks.accounts).toMatch(/^degraded: /);
    const res = await lookup(noKafka.url, randomUUID());
    expect({ status: res.status, email: res.body?.traits?.work_email }).toEqual({ status: 200, email });

    const { accountId } = await accountWithData();
    await produceRaw(TOPICS.accounts, [event('account.deleted', accountId)]);
    expect(await applied()).toBe(0);

    await proxy.open();
    // Its group is new and reads from the beginning, so it applies this deletion among the topic's earlier ones.
    await waitFor(async () => (await applied()) >= 1, { what: 'deletions applied by the service started without Kafka', timeoutMs: 90_000 });
    await gone(accountId);
    await waitFor(async () => (await request(`${noKafka.url}/readyz`)).body.checks.accounts === 'ok', { what: 'the accounts consumer ok' });
  } finally {
    await noKafka.stop();
    await proxy.close();
  }
}, 120_000);
