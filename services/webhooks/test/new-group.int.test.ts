// A consumer group without a committed offset on a partition (a new group, or a partition that moved
// to another replica before its first commit) reads it from its start, on the real broker: an effect
// published while no replica had committed is still delivered, and an effect published before its
// endpoint existed is not delivered to it. Before this, such a group started at the end of the
// partition and skipped what came in between (the chaos run lost effects at a replica's SIGKILL).
import { randomUUID } from 'node:crypto';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { TOPICS, playbookEffectSchema } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, request, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw, truncateTopic } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';

let receiver: Receiver;
const services: RunningWebhooksService[] = [];
const accountId = randomUUID();
const startedAt = new Date();

beforeAll(async () => {
  receiver = await startReceiver();
  // The new group below starts at the log's start: what earlier runs and benches left on the shared
  // broker's playbook.effects (a bench run writes several hundred thousand) is not this test's to read.
  await truncateTopic(TOPICS.playbookEffects);
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId } });
  // The new group read the whole topic: what it scheduled for other tests' endpoints left behind is not theirs to send.
  await testDb('webhooks').webhookDelivery.deleteMany({ where: { createdAt: { gte: startedAt } } });
  await receiver?.close();
  await closeTestDb();
});

async function start(overrides: Record<string, string> = {}): Promise<RunningWebhooksService> {
  const service = await startTestWebhooksService(overrides);
  services.push(service);
  return service;
}

async function stop(service: RunningWebhooksService): Promise<void> {
  services.splice(services.indexOf(service), 1);
  await service.stop();
}

function effect(email: string): { effectId: string; value: string } {
  const message = playbookEffectSchema.parse({
    effectId: randomUUID(),
    eventId: randomUUID(),
    accountId,
    playbookId: randomUUID(),
    email,
    action: 'started',
    at: new Date().toISOString(),
  });
  return { effectId: message.effectId, value: JSON.stringify(message) };
}

describe('webhooks consumer group without a committed offset', () => {
  it('when effects were published before the group first read the partition, then the one published after the endpoint existed is delivered and the earlier one is not', async () => {
    const email = uniqueEmail('new-group');
    const key = `${accountId}:${email}`;
    // One key, so one partition, read in this order.
    const before = effect(email);
    await produceRaw(TOPICS.playbookEffects, [{ key, value: before.value }]);

    // The endpoint is made through a service whose groups are already at the end (as the test support makes them); then it stops.
    const manager = await start();
    const res = await request(`${manager.url}/internal/webhooks`, {
      method: 'POST',
      headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['enrollment.started'] }),
    });
    expect(res.status).toBe(201);
    const endpointId = res.body.id as string;
    await stop(manager);

    // Published while no replica of the new group below has read the partition.
    const after = effect(email);
    await produceRaw(TOPICS.playbookEffects, [{ key, value: after.value }]);

    // A group with no committed offset at all (a partition that moved before its first commit is the same case).
    await start({ WEBHOOKS_GROUP_ID: `glimpse-webhooks-new-${randomUUID()}` });

    await waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === after.effectId), {
      what: 'the effect published after the endpoint delivered',
      timeoutMs: 120_000,
    });
    const scheduled = await testDb('webhooks').webhookDelivery.findMany({ where: { endpointId }, select: { effectId: true } });
    expect(scheduled.map((d) => d.effectId)).toEqual([after.effectId]);
    expect(receiver.requests.filter((r) => r.headers['webhook-id'] === before.effectId)).toEqual([]);
  }, 180_000);
});
