// Dead letters on the real broker: an effect or an identification the webhooks service cannot read
// goes to its own dead-letter topic (webhooks.dlq) with its source and reason, never to the playbook
// service's events.inbound.dlq (the webhooks Kafka user may not write that one), and the messages
// after it on the partition are still scheduled.
import { randomBytes, randomUUID } from 'node:crypto';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { TOPICS, playbookEffectSchema, visitorIdentifiedSchema } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, request, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { endOffsets, produceRaw, readTopic, type Offsets, type ReadMessage } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';

let webhooks: RunningWebhooksService;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  // Enrichment is never reached: the identification that is valid has no subscriber for it.
  webhooks = await startTestWebhooksService();
});

afterAll(async () => {
  await webhooks?.stop();
  await receiver?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

function newAccount(): string {
  const accountId = randomUUID();
  accounts.push(accountId);
  return accountId;
}

/** An endpoint of the account subscribed to the given types (through the internal API, as the gateway does it). */
async function subscribe(accountId: string, events: string[]): Promise<string> {
  const res = await request(`${webhooks.url}/internal/webhooks`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events }),
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Both dead-letter topics' end offsets, taken before an act. */
async function deadLetterOffsets(): Promise<{ own: Offsets; playbook: Offsets }> {
  const [own, playbook] = await Promise.all([endOffsets(TOPICS.webhooksDeadLetter), endOffsets(TOPICS.eventsDeadLetter)]);
  return { own, playbook };
}

/** The dead letters with `key` on webhooks.dlq (waiting for `count`), and on events.inbound.dlq up to its end now. */
async function deadLettersOf(key: string, count: number, from: { own: Offsets; playbook: Offsets }): Promise<{ own: ReadMessage[]; playbook: ReadMessage[] }> {
  const ofKey = (messages: ReadMessage[]) => messages.filter((m) => m.key === key);
  const own = ofKey(await readTopic(TOPICS.webhooksDeadLetter, { from: from.own, until: (read) => ofKey(read).length >= count }));
  const playbook = ofKey(await readTopic(TOPICS.eventsDeadLetter, { from: from.playbook, to: await endOffsets(TOPICS.eventsDeadLetter) }));
  return { own, playbook };
}

describe('webhooks dead letters', () => {
  it('when an effect is not an effect, then it goes to webhooks.dlq with its source and reason, nothing goes to events.inbound.dlq, and the next effect is scheduled', async () => {
    const accountId = newAccount();
    const endpointId = await subscribe(accountId, ['enrollment.started']);
    const email = uniqueEmail('dead-letter');
    const key = `${accountId}:${email}`;
    const valid = playbookEffectSchema.parse({
      effectId: randomUUID(),
      eventId: randomUUID(),
      accountId,
      playbookId: randomUUID(),
      email,
      action: 'started',
      at: new Date().toISOString(),
    });
    const from = await deadLetterOffsets();

    // One key, so one partition: the two poison messages come before the valid effect.
    await produceRaw(TOPICS.playbookEffects, [
      { key, value: JSON.stringify({ ...valid, effectId: randomUUID(), accountId: 'not-a-uuid' }) },
      { key, value: 'not json at all' },
      { key, value: JSON.stringify(valid) },
    ]);

    await waitFor(async () => (await testDb('webhooks').webhookDelivery.count({ where: { endpointId } })) === 1 || undefined, {
      what: 'the valid effect scheduled',
      timeoutMs: 30_000,
    });
    const letters = await deadLettersOf(key, 2, from);
    expect(letters.own.map((m) => m.headers['x-source-topic'])).toEqual([TOPICS.playbookEffects, TOPICS.playbookEffects]);
    expect(letters.own[0]!.headers['x-reason']).toMatch(/accountId/);
    expect(letters.own[1]!.headers['x-reason']).toBe('not JSON');
    expect(letters.playbook).toEqual([]);
  });

  it('when an identification is not an identification, then it goes to webhooks.dlq with its source and reason, and nothing goes to events.inbound.dlq', async () => {
    const accountId = newAccount();
    const visitorId = randomBytes(12).toString('hex');
    const key = `${accountId}:${visitorId}`;
    const valid = visitorIdentifiedSchema.parse({
      eventId: randomUUID(),
      accountId,
      siteId: randomUUID(),
      visitorId,
      method: 'form',
      confidence: 0.9,
      email: uniqueEmail('dead-letter'),
      at: new Date().toISOString(),
    });
    const from = await deadLetterOffsets();

    await produceRaw(TOPICS.visitorsIdentified, [
      { key, value: JSON.stringify({ ...valid, eventId: randomUUID(), confidence: 'high' }) },
      { key, value: 'not json at all' },
      // Valid, and after the poison: the consumer goes on (no endpoint subscribes, so nothing is scheduled).
      { key, value: JSON.stringify(valid) },
    ]);

    const letters = await deadLettersOf(key, 2, from);
    expect(letters.own.map((m) => m.headers['x-source-topic'])).toEqual([TOPICS.visitorsIdentified, TOPICS.visitorsIdentified]);
    expect(letters.own[0]!.headers['x-reason']).toMatch(/confidence/);
    expect(letters.own[1]!.headers['x-reason']).toBe('not JSON');
    expect(letters.playbook).toEqual([]);
  });
});
