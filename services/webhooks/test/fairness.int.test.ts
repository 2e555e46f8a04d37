// Fair fan-out, on the real stack (the webhooks service, Postgres, Kafka, real HTTP servers): account
// A's three endpoints point at a server that accepts every request and never answers, with 150 due
// deliveries; account C has one such hanging endpoint and one healthy one; account B has one
// healthy endpoint. With 8 slots, at most 4 in flight per account and 2 per endpoint:
//   - A never holds more than 4 requests open (2 per endpoint), C's hanging endpoint never more
//     than 2, so C's healthy endpoint gets its deliveries while its other one hangs;
//   - B's deliveries, due after A filled its share, are all made within the stated bound: one claim
//     round (WEBHOOKS_POLL_INTERVAL_MS, 1 s) plus their own time, asserted with 4 s of slack for a
//     loaded 2-core machine, while every one of A's attempts is still hanging (its timeout is 30 s;
//     with the global oldest-first claim of before, B waited behind A's 150 deliveries: 150 / 8
//     rounds of 30 s).
// The test runs on a database of its own (support/private-database): another webhooks service on
// the shared test database would claim these deliveries too, with its own timeouts.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import { DEV_WEBHOOKS_SECRET_KEY, type RunningWebhooksService } from '@glimpse/webhooks';
import type { Db } from '@glimpse/db/webhooks';
import { waitFor } from '../../../test/support/stack';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { enqueueEffect } from '../src/data/delivery-repository';
import { insertEndpoint } from '../src/data/endpoint-repository';
import { createSecretBox } from '../src/domain/secret-box';
import { newSecret } from '../src/domain/signing';
import { privateDatabase, type PrivateDatabase } from './support/private-database';

const POLL_INTERVAL_MS = 1000;
const SLACK_MS = 4000;
const HANG_TIMEOUT_MS = 30_000;
const CAPS = { WEBHOOKS_CONCURRENCY: '8', WEBHOOKS_ACCOUNT_CONCURRENCY: '4', WEBHOOKS_ENDPOINT_CONCURRENCY: '2' };

/** A server that reads each request and never answers, counting what is open per path. */
interface HangingServer {
  url: string;
  open: Map<string, number>;
  /** The most requests open at once, per path and in all. */
  peak: Map<string, number>;
  peakTotal: number;
  received: number;
  close(): Promise<void>;
}

async function startHangingServer(): Promise<HangingServer> {
  const sockets = new Set<Socket>();
  const state: HangingServer = { url: '', open: new Map(), peak: new Map(), peakTotal: 0, received: 0, close: async () => {} };
  const server = http.createServer((req) => {
    const path = req.url ?? '';
    state.received += 1;
    state.open.set(path, (state.open.get(path) ?? 0) + 1);
    state.peak.set(path, Math.max(state.peak.get(path) ?? 0, state.open.get(path)!));
    state.peakTotal = Math.max(
      state.peakTotal,
      [...state.open.values()].reduce((a, b) => a + b, 0),
    );
    req.resume();
    req.socket.once('close', () => state.open.set(path, state.open.get(path)! - 1));
    // No answer, ever.
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

let hanging: HangingServer;
let receiver: Receiver;
let webhooks: RunningWebhooksService;
let database: PrivateDatabase;
let db: Db;

beforeAll(async () => {
  [hanging, receiver, database] = await Promise.all([startHangingServer(), startReceiver(), privateDatabase('glimpse_test_webhooks_fairness')]);
  db = database.db;
  webhooks = await startTestWebhooksService({
    ...CAPS,
    DATABASE_URL: database.webhooksUrl,
    WEBHOOKS_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
    WEBHOOKS_TIMEOUT_MS: String(HANG_TIMEOUT_MS),
    WEBHOOKS_RETRY_BASE_MS: '60000',
  });
});

afterAll(async () => {
  // The hanging requests fail at once when their sockets go, so the service stops without waiting them out.
  await hanging?.close();
  await webhooks?.stop();
  await receiver?.close();
  await database?.drop();
});

/** An account's endpoints, subscribed as the management API does (their secrets sealed with the service's key). */
async function account(urls: string[]): Promise<{ accountId: string; endpoints: string[] }> {
  const accountId = randomUUID();
  const box = createSecretBox(DEV_WEBHOOKS_SECRET_KEY);
  const endpoints: string[] = [];
  for (const url of urls) {
    const id = randomUUID();
    expect(await insertEndpoint(db, { id, accountId, url, events: ['enrollment.started'], secret: box.seal(id, newSecret()) }, 20)).not.toBeNull();
    endpoints.push(id);
  }
  return { accountId, endpoints };
}

/** `count` effects due now, each for a new person, scheduled as the effects consumer does (one delivery per subscribed endpoint). */
async function due(accountId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const effectId = randomUUID();
    const at = new Date().toISOString();
    const payload = JSON.stringify({
      type: 'enrollment.started',
      timestamp: at,
      data: { effectId, eventId: randomUUID(), playbookId: randomUUID(), email: `p${i}.${effectId.slice(0, 8)}@example.com`, at },
    });
    await enqueueEffect(db, { accountId, effectId, personKey: randomUUID(), type: 'enrollment.started', payload, publishedAt: new Date() }, 86_400_000);
    ids.push(effectId);
  }
  return ids;
}

const attemptsOf = async (accountId: string) =>
  (
    await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE e.account_id = ${accountId}::uuid`
  )[0]!.n;

describe('fair fan-out', () => {
  it('when one account hangs with a backlog, then it holds at most its share of the slots, and another account is delivered within one claim round', async () => {
    const a = await account([`${hanging.url}/a0`, `${hanging.url}/a1`, `${hanging.url}/a2`]);
    const c = await account([`${hanging.url}/c0`, receiver.url.replace('/hooks', '/c-healthy')]);
    const b = await account([receiver.url.replace('/hooks', '/b')]);

    await due(a.accountId, 50); // 150 deliveries: one per endpoint of A
    const cEffects = await due(c.accountId, 10); // 10 to C's hanging endpoint, 10 to its healthy one

    // A fills its share (4: a turn per endpoint, then one more) and C's hanging endpoint its 2.
    await waitFor(async () => (hanging.open.get('/c0') === 2 && ['/a0', '/a1', '/a2'].reduce((n, p) => n + (hanging.open.get(p) ?? 0), 0) === 4) || undefined, {
      what: 'A and C holding their share of slots',
      timeoutMs: 15_000,
    });
    // C's healthy endpoint is served beside its hanging one (C's other 2 slots).
    await waitFor(async () => cEffects.every((id) => receiver.requests.some((r) => r.path === '/c-healthy' && r.headers['webhook-id'] === id)) || undefined, {
      what: "C's healthy endpoint served while its other one hangs",
      timeoutMs: 15_000,
    });

    const t0 = Date.now();
    const bEffects = await due(b.accountId, 10);
    const arrived = await waitFor(
      async () => {
        const got = bEffects.map((id) => receiver.requests.find((r) => r.path === '/b' && r.headers['webhook-id'] === id));
        return got.every(Boolean) ? Date.now() - t0 : undefined;
      },
      { what: "B's deliveries", timeoutMs: HANG_TIMEOUT_MS - 5000, intervalMs: 20 },
    );

    // The bound: one claim round (the poll interval; a completion or a poke claims sooner) plus B's own delivery time.
    expect(arrived).toBeLessThan(POLL_INTERVAL_MS + SLACK_MS);
    // ...while every request of A is still hanging: none of its attempts has ended.
    expect(await attemptsOf(a.accountId)).toBe(0);
    // The caps held throughout: at most 2 open per endpoint, 4 for A, and never more than the 8 slots.
    for (const path of ['/a0', '/a1', '/a2', '/c0']) expect(hanging.peak.get(path) ?? 0).toBeLessThanOrEqual(2);
    expect(['/a0', '/a1', '/a2'].reduce((n, p) => n + (hanging.open.get(p) ?? 0), 0)).toBe(4);
    expect(hanging.peakTotal).toBeLessThanOrEqual(6);
    expect(hanging.received).toBe(6);
    const leased = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE e.account_id = ${a.accountId}::uuid AND d.leased_until > now()`;
    expect(leased[0]!.n).toBe(4);
    // B's deliveries are recorded delivered.
    await waitFor(async () => (await db.webhookDelivery.count({ where: { endpointId: b.endpoints[0], status: 'delivered' } })) === 10 || undefined, {
      what: "B's deliveries recorded",
    });
  });
});
