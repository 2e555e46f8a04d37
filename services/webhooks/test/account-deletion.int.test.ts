// A deleted account's webhooks go: account.deleted on the accounts topic (produced here straight
// onto the real topic, as the identity outbox would) removes the account's endpoints, and with them
// their deliveries and attempts; another account's stay. Messages that are no account event are
// skipped without stopping the consumer, and a repeated deletion changes nothing.
import { randomUUID } from 'node:crypto';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { TOPICS, personKey, type AccountEventMessage } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, request, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';

let webhooks: RunningWebhooksService;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  webhooks = await startTestWebhooksService();
});

afterAll(async () => {
  await webhooks?.stop();
  await receiver?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

interface Counts {
  endpoints: number;
  deliveries: number;
  attempts: number;
}

async function rowsOf(accountId: string): Promise<Counts> {
  const [row] = await testDb('webhooks').$queryRaw<Counts[]>`
    SELECT (SELECT count(*) FROM webhook_endpoints WHERE account_id = ${accountId}::uuid)::int AS endpoints,
           (SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.account_id = ${accountId}::uuid)::int AS deliveries,
           (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE e.account_id = ${accountId}::uuid)::int AS attempts`;
  return row!;
}

/** Two endpoints (subscribed through the internal API, as the gateway does), each with one delivery sent once. */
async function accountWithWebhooks(): Promise<{ accountId: string; endpointIds: string[] }> {
  const accountId = randomUUID();
  accounts.push(accountId);
  const endpointIds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await request(`${webhooks.url}/internal/webhooks`, {
      method: 'POST',
      headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['enrollment.started'] }),
    });
    expect(res.status).toBe(201);
    endpointIds.push(res.body.id);
  }
  const email = uniqueEmail('deleted-account');
  const effect = { effectId: randomUUID(), eventId: randomUUID(), accountId, playbookId: randomUUID(), email, action: 'started', at: new Date().toISOString() };
  await produceRaw(TOPICS.playbookEffects, [{ key: personKey(accountId, email), value: JSON.stringify(effect) }]);
  await waitFor(async () => (await rowsOf(accountId)).attempts === 2, { what: 'both deliveries attempted' });
  expect(await rowsOf(accountId)).toEqual({ endpoints: 2, deliveries: 2, attempts: 2 });
  return { accountId, endpointIds };
}

const event = (type: AccountEventMessage['type'], accountId: string) => ({
  key: accountId,
  value: JSON.stringify({ type, accountId, at: new Date().toISOString() }),
});
const gone = (accountId: string) => waitFor(async () => (await rowsOf(accountId)).endpoints === 0, { what: `account ${accountId}'s endpoints gone` });

it("when account.deleted arrives after messages that are no account event, then the account's endpoints, deliveries and attempts are gone and another account's stay", async () => {
  receiver.script([], 'ok');
  const deleted = await accountWithWebhooks();
  const kept = await accountWithWebhooks();

  // Same key, so the same partition: the deletion comes after the bad messages and is applied only if they were skipped.
  await produceRaw(TOPICS.accounts, [
    { key: deleted.accountId, value: '{"type":"account.deleted"' },
    { key: deleted.accountId, value: JSON.stringify({ type: 'account.deleted', accountId: 'not-a-uuid', at: new Date().toISOString() }) },
    event('account.created', kept.accountId),
    event('account.deleted', deleted.accountId),
  ]);
  await gone(deleted.accountId);

  expect(await rowsOf(deleted.accountId)).toEqual({ endpoints: 0, deliveries: 0, attempts: 0 });
  expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId: { in: deleted.endpointIds } } })).toBe(0);
  expect(await rowsOf(kept.accountId)).toEqual({ endpoints: 2, deliveries: 2, attempts: 2 });
  const ready = await request(`${webhooks.url}/readyz`);
  expect({ status: ready.status, accounts: ready.body.checks.accounts }).toEqual({ status: 200, accounts: 'ok' });
});

it('when account.deleted arrives again, then nothing fails and the next deletion is applied', async () => {
  receiver.script([], 'ok');
  const first = await accountWithWebhooks();
  const second = await accountWithWebhooks();
  await produceRaw(TOPICS.accounts, [event('account.deleted', first.accountId)]);
  await gone(first.accountId);

  await produceRaw(TOPICS.accounts, [event('account.deleted', first.accountId), event('account.deleted', second.accountId)]);
  await gone(second.accountId);
  const metrics = (await request(`${webhooks.url}/metrics`)).body as string;
  expect(metrics).toMatch(/^glimpse_account_events_failures_total 0$/m);
});
