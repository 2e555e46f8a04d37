// Segment alerts on the real stack: segment.entered and segment.digest messages produced straight
// onto visitors.segments (as the visitors service publishes them), the webhooks service scheduling
// them for the account's webhook and Slack endpoints, POSTing signed payloads to a real local
// receiver and Block Kit messages through Slack's own client to a real local HTTP server standing
// in for Slack's webhook host (hooks.slack.com is not reachable here; loopback targets are allowed
// in the tests as they are for webhooks). Slack's answers steer the retries: a 429 waits its
// Retry-After, a 410 disables that endpoint as revoked and leaves the account's other endpoints be.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { segmentDigestPayloadSchema, segmentEnteredPayloadSchema } from '@glimpse/api';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { TOPICS, segmentDigestSchema, segmentEnteredSchema, type SegmentAlertMessage, type SegmentMemberMessage } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { slackMessageSchema } from '../src/domain/slack-blocks';
import { closeTestDb, request, testDb, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startSlackHost, type SlackHost, type SlackRequest } from '../../../test/support/slack-host';
import { startReceiver, startTestWebhooksService, type Receiver, type ReceivedRequest } from '../../../test/support/webhooks';

let webhooks: RunningWebhooksService;
let receiver: Receiver;
let slack: SlackHost;
const accounts: string[] = [];
const CONSOLE_URL = 'https://glimpse.example/console/';

beforeAll(async () => {
  [receiver, slack] = await Promise.all([startReceiver(), startSlackHost()]);
  webhooks = await startTestWebhooksService({ WEBHOOKS_CONSOLE_URL: CONSOLE_URL });
});

afterAll(async () => {
  await webhooks?.stop();
  await receiver?.close();
  await slack?.close();
  // Once the service is stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

function newAccount(): string {
  const accountId = randomUUID();
  accounts.push(accountId);
  return accountId;
}

const internal = (accountId: string) => ({
  [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN,
  [INTERNAL_HEADERS.account]: accountId,
  'content-type': 'application/json',
});

/** An endpoint of the account through the internal API, as the gateway creates it. */
async function create(accountId: string, body: Record<string, unknown>) {
  return request(`${webhooks.url}/internal/webhooks`, { method: 'POST', headers: internal(accountId), body: JSON.stringify(body) });
}

async function slackEndpoint(accountId: string, url: string): Promise<string> {
  const res = await create(accountId, { kind: 'slack', url });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function webhookEndpoint(accountId: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await create(accountId, { url: receiver.url, events });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret };
}

function member(fields: Partial<SegmentMemberMessage> = {}): SegmentMemberMessage {
  const at = new Date().toISOString();
  return {
    kind: 'company',
    key: `acme-${randomBytes(4).toString('hex')}.example`,
    name: 'Acme Corp',
    domain: null,
    email: null,
    score: 72,
    reasons: [
      { reason: 'Visited /pricing* (page rule)', points: 40, at },
      { reason: '3 sessions', points: 32, at },
    ],
    location: { country: 'DE', region: 'Berlin', city: 'Berlin', time_zone: 'Europe/Berlin' },
    lastPages: [{ path: '/pricing', title: 'Pricing', at }],
    visitors: 2,
    ...fields,
  };
}

function entered(accountId: string, fields: Partial<SegmentMemberMessage> = {}) {
  const m = member(fields);
  return segmentEnteredSchema.parse({
    type: 'segment.entered',
    eventId: randomUUID(),
    accountId,
    segmentId: randomUUID(),
    segmentName: 'Hot accounts',
    segmentKind: 'companies',
    windowStart: new Date(Date.now() - 3_600_000).toISOString(),
    at: new Date().toISOString(),
    member: { ...m, domain: m.key },
  });
}

function digest(accountId: string) {
  return segmentDigestSchema.parse({
    type: 'segment.digest',
    eventId: randomUUID(),
    accountId,
    segmentId: randomUUID(),
    segmentName: 'Pricing readers',
    segmentKind: 'visitors',
    day: new Date().toISOString().slice(0, 10),
    newMembers: 3,
    members: 11,
    top: [member({ kind: 'visitor', key: randomBytes(12).toString('hex'), email: 'ada@acme.example', visitors: 1 })],
    at: new Date().toISOString(),
  });
}

const publish = (...messages: SegmentAlertMessage[]) =>
  produceRaw(
    TOPICS.visitorsSegments,
    messages.map((m) => ({ key: `${m.accountId}:${m.segmentId}`, value: JSON.stringify(m) })),
  );

const slackRequestsTo = (url: string): SlackRequest[] => slack.requests.filter((r) => url.endsWith(r.path));
const webhookRequestsOf = (eventId: string): ReceivedRequest[] => receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);

async function slackDelivered(url: string): Promise<SlackRequest> {
  return waitFor(async () => slackRequestsTo(url).find((r) => r.status === 200), { what: 'the Slack message delivered', timeoutMs: 45_000 });
}

async function webhookDelivered(eventId: string): Promise<ReceivedRequest> {
  return waitFor(async () => webhookRequestsOf(eventId).find((r) => r.answered === 'ok'), { what: `alert ${eventId} delivered`, timeoutMs: 45_000 });
}

describe('segment alerts to webhooks and Slack', () => {
  it('when a company enters a segment, then the Slack endpoint receives a valid Block Kit message about it and the webhook endpoint the signed segment.entered payload', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const hook = slack.hook();
    await slackEndpoint(accountId, hook);
    const subscribed = await webhookEndpoint(accountId, ['segment.entered']);
    const message = entered(accountId);

    await publish(message);

    const posted = await slackDelivered(hook);
    const body = slackMessageSchema.parse(JSON.parse(posted.body));
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Acme Corp entered Hot accounts', emoji: false } });
    const all = JSON.stringify(body.blocks);
    expect(all).toContain('72 / 100');
    expect(all).toContain('Visited /pricing* (page rule): *40* pts');
    expect(all).toContain('Berlin, Berlin, DE');
    expect(all).toContain('`/pricing` Pricing');
    expect(all).toContain(`${CONSOLE_URL}#/companies?company=${message.member.key}`);

    const received = await webhookDelivered(message.eventId);
    const payload = segmentEnteredPayloadSchema.parse(new Webhook(subscribed.secret).verify(received.body, received.headers));
    expect(payload).toMatchObject({
      type: 'segment.entered',
      timestamp: message.at,
      data: {
        segment: { id: message.segmentId, name: 'Hot accounts', kind: 'companies' },
        window_start: message.windowStart,
        member: { kind: 'company', key: message.member.key, score: 72, last_pages: [{ path: '/pricing', title: 'Pricing' }] },
      },
    });
  });

  it('when Slack answers 429 with Retry-After: 2, then the message is sent again no sooner than 2 s later, and delivered', async () => {
    const accountId = newAccount();
    const hook = slack.hook([{ status: 429, body: 'rate_limited', headers: { 'retry-after': '2' } }]);
    const endpointId = await slackEndpoint(accountId, hook);

    await publish(entered(accountId));

    const delivered = await slackDelivered(hook);
    const [limited] = slackRequestsTo(hook);
    expect(limited!.status).toBe(429);
    expect(delivered.receivedAt - limited!.answeredAt).toBeGreaterThanOrEqual(2000);
    const [row] = await waitFor(
      async () => {
        const rows = await testDb('webhooks').webhookDelivery.findMany({
          where: { endpointId },
          select: { status: true, attemptRows: { select: { responseStatus: true, error: true, succeeded: true }, orderBy: { at: 'asc' } } },
        });
        return rows.length === 1 && rows[0]!.status === 'delivered' ? rows : undefined;
      },
      { what: 'the delivery recorded as delivered' },
    );
    expect(row!.attemptRows).toEqual([
      { responseStatus: 429, error: 'Slack answered 429 (rate_limited)', succeeded: false },
      { responseStatus: 200, error: null, succeeded: true },
    ]);
  });

  it("when Slack answers 410, then that endpoint is disabled as revoked, the account's webhook endpoint still gets its delivery, and the console's API says why", async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const hook = slack.hook([{ status: 410, body: 'no_service' }]);
    const slackId = await slackEndpoint(accountId, hook);
    await webhookEndpoint(accountId, ['segment.entered']);
    const message = entered(accountId);

    await publish(message);

    await webhookDelivered(message.eventId);
    const endpoint = await waitFor(
      async () => {
        const res = await request(`${webhooks.url}/internal/webhooks/${slackId}`, { headers: internal(accountId) });
        return res.body.enabled === false ? res.body : undefined;
      },
      { what: 'the Slack endpoint disabled' },
    );
    expect(endpoint).toMatchObject({ kind: 'slack', enabled: false, disabledReason: 'revoked', disabledAt: expect.any(String) });
    expect(slackRequestsTo(hook).map((r) => r.status)).toEqual([410]);
    const deliveries = await request(`${webhooks.url}/internal/webhooks/${slackId}/deliveries`, { headers: internal(accountId) });
    expect(deliveries.body.items).toMatchObject([
      { effectId: message.eventId, status: 'pending', attempts: [{ succeeded: false, responseStatus: 410, error: 'Slack answered 410 (no_service)' }] },
    ]);
    // Paused, not sent again, while the endpoint is disabled.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(slackRequestsTo(hook)).toHaveLength(1);
  });

  it('when the same alert is published again, then each endpoint receives it once', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const hook = slack.hook();
    const slackId = await slackEndpoint(accountId, hook);
    await webhookEndpoint(accountId, ['segment.entered']);
    const message = entered(accountId);
    // Same key (account and segment), so the marker is handled after both copies.
    const marker = { ...entered(accountId), segmentId: message.segmentId };

    await publish(message);
    await webhookDelivered(message.eventId);
    await slackDelivered(hook);
    await publish(message, marker);

    await webhookDelivered(marker.eventId);
    await waitFor(async () => slackRequestsTo(hook).length >= 2 || undefined, { what: "the marker's Slack message" });
    expect(webhookRequestsOf(message.eventId)).toHaveLength(1);
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId: slackId, effectId: message.eventId } })).toBe(1);
    expect(slackRequestsTo(hook)).toHaveLength(2);
  });

  it('when a segment digest is published, then it reaches both kinds of endpoint: one Slack message for the segment and the signed segment.digest payload', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const hook = slack.hook();
    await slackEndpoint(accountId, hook);
    const subscribed = await webhookEndpoint(accountId, ['segment.digest']);
    const message = digest(accountId);

    await publish(message);

    const posted = await slackDelivered(hook);
    const body = slackMessageSchema.parse(JSON.parse(posted.body));
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Pricing readers: daily digest' } });
    expect(JSON.stringify(body.blocks)).toContain('ada@acme.example');
    expect(body.text).toBe(`Pricing readers, ${message.day}: 3 new, 11 members`);
    const received = await webhookDelivered(message.eventId);
    expect(segmentDigestPayloadSchema.parse(new Webhook(subscribed.secret).verify(received.body, received.headers)).data).toMatchObject({
      segment: { id: message.segmentId, name: 'Pricing readers', kind: 'visitors' },
      day: message.day,
      new_members: 3,
      members: 11,
      top: [{ kind: 'visitor', email: 'ada@acme.example' }],
    });
    expect(slackRequestsTo(hook)).toHaveLength(1);
  });

  it('when a Slack endpoint is created, then its URL is answered masked everywhere, it gets the segment events, has no secret, and only Slack URLs and segment events are accepted', async () => {
    const accountId = newAccount();
    const hook = slack.hook();
    const created = await create(accountId, { kind: 'slack', url: hook });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'slack', events: ['segment.entered', 'segment.digest'], enabled: true, disabledReason: null });
    expect(created.body.secret).toBeUndefined();
    const listed = await request(`${webhooks.url}/internal/webhooks`, { headers: internal(accountId) });
    const got = await request(`${webhooks.url}/internal/webhooks/${created.body.id}`, { headers: internal(accountId) });
    const token = hook.split('/').pop()!;
    for (const answer of [created.body, listed.body, got.body]) {
      expect(JSON.stringify(answer)).not.toContain(token.slice(0, 20));
      expect(JSON.stringify(answer)).not.toContain(hook);
    }
    expect(got.body.url).toBe(`${slack.origin}/…${token.slice(-4)}`);
    expect((await testDb('webhooks').webhookEndpoint.findUniqueOrThrow({ where: { id: created.body.id } })).url).toBe(hook);

    const refused = [
      await create(accountId, { kind: 'slack', url: 'https://example.com/services/T1/B2/c3' }),
      await create(accountId, { kind: 'slack', url: hook, events: ['company.visited'] }),
      await request(`${webhooks.url}/internal/webhooks/${created.body.id}/rotate-secret`, { method: 'POST', headers: internal(accountId) }),
      await request(`${webhooks.url}/internal/webhooks/${created.body.id}`, {
        method: 'PATCH',
        headers: internal(accountId),
        body: JSON.stringify({ events: ['visitor.identified'] }),
      }),
    ];
    expect(refused.map((r) => [r.status, r.body.message])).toEqual([
      [400, 'url must be a Slack incoming-webhook URL (https://hooks.slack.com/services/…)'],
      [400, 'a Slack endpoint receives segment.entered and segment.digest only'],
      [400, 'a Slack endpoint has no signing secret: Slack messages are not signed'],
      [400, 'a Slack endpoint receives segment.entered and segment.digest only'],
    ]);
  });
});
