// The gateway's publisher of the identity outbox: it puts account events on the accounts topic by
// itself, every ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS, marks them, and reports it in /metrics.
import { accountEventsPending, createAccount, deleteAccount } from '@glimpse/auth';
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startTestGateway, testDb, waitFor } from '../../../test/support/stack';
import { endOffsets, readTopic } from '../../../test/support/kafka-helpers';
import type { RunningGateway } from '../src/start';

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS: '200' });
});

afterAll(async () => {
  await gateway?.stop();
  await closeTestDb();
});

describe('the gateway publishing account events', () => {
  it('when an account is created and deleted, then without anyone else publishing the gateway sends both in order and marks them; /metrics counts them', async () => {
    const from = await endOffsets(TOPICS.accounts);
    const { id } = await createAccount(testDb('identity'), 'Published by the gateway');
    await deleteAccount(testDb('identity'), id);
    await waitFor(async () => (await accountEventsPending(testDb('identity'), id)) === 0, { what: 'the gateway to publish the events' });
    const messages = await readTopic(TOPICS.accounts, { from, until: (read) => read.filter((m) => m.key === id).length >= 2 });
    expect(messages.filter((m) => m.key === id).map((m) => m.json.type)).toEqual(['account.created', 'account.deleted']);

    const metrics = await waitFor(
      async () => {
        const body = (await request(`${gateway.url}/metrics`)).body as string;
        // Alone, this gateway published the rows above; beside other tests' gateways (every 2 s) this one (every 0.2 s) wins nearly every round.
        return /^glimpse_account_events_published_total [1-9]/m.test(body) && /^glimpse_account_events_unpublished \d+/m.test(body) ? body : false;
      },
      { what: 'the publisher metrics' },
    );
    expect(metrics).toMatch(/^glimpse_account_events_publish_failures_total 0/m);
    expect(metrics).not.toContain('Published by the gateway');
  });
});
