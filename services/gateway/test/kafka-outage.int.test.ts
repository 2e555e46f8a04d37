// The broker really goes away, or hangs: the gateway must refuse events it cannot record (503) rather than
// accept them, and take events again once the broker is back. The broker is this file's own (a
// private one on free ports), so the shared broker other tests and checkouts use is never touched.
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { eventCatalog, type RunningPlaybookService } from '@glimpse/playbook';
import {
  closeTestDb,
  createTestAccount,
  postEvent,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
} from '../../../test/support/stack';
import { startPrivateKafka, type PrivateKafka } from '../../../test/support/private-kafka';
import { redisUrl } from '../../../test/config';
import { rawCopiesOf } from '../../../test/support/raw-copies';
import type { RunningGateway } from '../src/start';

let kafka: PrivateKafka;

const SEND_TIMEOUT_MS = 3000;

let gateway: RunningGateway;
let playbook: RunningPlaybookService;
let redis: Redis;

beforeAll(async () => {
  kafka = await startPrivateKafka();
  const KAFKA_BROKERS = kafka.brokers.join(',');
  [gateway, playbook] = await Promise.all([
    startTestGateway({ KAFKA_BROKERS, KAFKA_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS) }),
    // A new broker: the group has no offsets and starts at the (empty) topic's beginning.
    startTestPlaybookService({ KAFKA_BROKERS, PLAYBOOK_GROUP_ID: 'glimpse-playbook-test-outage', PLAYBOOK_SESSION_TIMEOUT_MS: '6000' }),
  ]);
  redis = new Redis(redisUrl());
}, 150_000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), playbook?.stop()]);
  await kafka?.destroy();
  redis?.disconnect();
  await closeTestDb();
});

async function catalogNames(accountId: string): Promise<string[]> {
  return (await eventCatalog(testDb('playbook'), accountId)).map((e) => e.name);
}

describe('POST /events while Kafka is down', () => {
  it('when the broker is stopped, then events are refused with 503 within the send timeout, nothing of them is kept or applied later, and once it is back events flow again', async () => {
    const { accountId, token } = await createTestAccount();
    const email = uniqueEmail();
    expect((await postEvent(gateway.url, token, { event: 'before_outage', email })).status).toBe(200);
    await waitFor(async () => (await catalogNames(accountId)).includes('before_outage'), { what: 'before_outage in the catalog' });
    expect((await rawCopiesOf(redis, accountId)).map((e) => e.event)).toEqual(['before_outage']);

    const refusedNames: string[] = [];
    let firstAccepted: string | undefined;
    let starting: Promise<unknown> = Promise.resolve();
    try {
      expect(await kafka.stop()).toMatchObject({ stopped: true });

      const t0 = Date.now();
      const refusing = postEvent(gateway.url, token, { event: 'during_outage', email });
      // The broker comes back while that send may still be retrying: a 503 must not be followed by the write after all.
      await new Promise((r) => setTimeout(r, 300));
      starting = kafka.start();
      const refused = await refusing;
      const elapsedMs = Date.now() - t0;
      expect(refused.status).toBe(503);
      // Refused connections: either the batch never left (nothing accepted) or kafkajs had it when the broker went.
      expect(refused.body).toEqual({
        error: 'service_unavailable',
        message: expect.stringMatching(/nothing was accepted, retry later|may not have been recorded/),
      });
      expect(refused.headers.get('retry-after')).toBe('1');
      // Well inside the send timeout: the send gave up by itself (connection refused), rather than
      // the timer answering while kafkajs keeps retrying it and writes it once the broker is back.
      expect(elapsedMs).toBeLessThan(SEND_TIMEOUT_MS / 2);
      refusedNames.push('during_outage');

      // Retry as a client would until the broker answers again.
      const deadline = Date.now() + 60_000;
      for (let n = 1; !firstAccepted && Date.now() < deadline; n++) {
        const event = `retry_${n}`;
        const res = await postEvent(gateway.url, token, { event, email });
        if (res.status === 200) firstAccepted = event;
        else {
          expect([event, res.status, res.body.error]).toEqual([event, 503, 'service_unavailable']);
          refusedNames.push(event);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } finally {
      await starting;
      await kafka.start();
    }

    expect(firstAccepted).toBeDefined();
    // The same person throughout, so one partition: once this last event is applied, anything written before it was too.
    expect((await postEvent(gateway.url, token, { event: 'after_outage', email })).status).toBe(200);
    await waitFor(async () => (await catalogNames(accountId)).includes('after_outage'), { timeoutMs: 60_000, what: 'after_outage in the catalog' });

    const names = await catalogNames(accountId);
    expect(names).toEqual(expect.arrayContaining(['before_outage', firstAccepted!, 'after_outage']));
    expect(names.filter((n) => refusedNames.includes(n))).toEqual([]);
    const kept = (await rawCopiesOf(redis, accountId)).map((e) => e.event);
    expect(kept).toEqual(['before_outage', firstAccepted!, 'after_outage']); // oldest first
  }, 150_000);

  it('when the broker is stopped, then the gateway and the playbook service report unready naming kafka, and ready again once it is back', async () => {
    const readiness = async (url: string) => {
      const res = await fetch(`${url}/readyz`);
      return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
    };
    expect((await readiness(gateway.url)).status).toBe(200);
    expect((await readiness(playbook.url)).status).toBe(200);
    try {
      expect(await kafka.stop()).toMatchObject({ stopped: true });
      for (const url of [gateway.url, playbook.url]) {
        const unready = await waitFor(
          async () => {
            const r = await readiness(url);
            return r.status === 503 ? r : undefined;
          },
          { timeoutMs: 15_000, what: `${url}/readyz to answer 503` },
        );
        expect(unready.body.checks.kafka).toMatch(/^failed: /);
      }
    } finally {
      await kafka.start();
    }
    for (const url of [gateway.url, playbook.url]) {
      await waitFor(async () => (await readiness(url)).status === 200, { timeoutMs: 60_000, what: `${url}/readyz to answer 200 again` });
    }
  }, 120_000);

  it('when the broker hangs (SIGSTOP), then the send is answered 503 within the send timeout, and a retry with the same Idempotency-Key is applied once, whatever the broker does with the frozen request when it wakes', async () => {
    const { accountId, token } = await createTestAccount();
    const email = uniqueEmail();
    expect((await postEvent(gateway.url, token, { event: 'before_freeze', email })).status).toBe(200);
    // The gateway's account-events publisher shares the producer: a request of its in flight when the
    // broker freezes would hold the event back unsent (answered "nothing was accepted", also true, but
    // not the case under test). Nothing is left for it to publish once the new account's event is out.
    await waitFor(async () => (await testDb('identity').accountEvent.count({ where: { publishedAt: null } })) === 0, {
      timeoutMs: 30_000,
      what: 'the account events published',
    });
    const pid = kafka.pid();
    if (!pid) throw new Error('the private broker is not running');
    const body = { event: 'frozen_send', email };
    let elapsedMs: number;
    let refused: Awaited<ReturnType<typeof postEvent>>;
    try {
      process.kill(pid, 'SIGSTOP');
      // The stop reaches every thread of the JVM a moment later: wait until the kernel says it is stopped.
      await waitFor(async () => /^\d+ \(.*\) T/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')), {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'the broker to be stopped',
      });
      const t0 = Date.now();
      refused = await postEvent(gateway.url, token, body, { 'idempotency-key': 'frozen-1' });
      elapsedMs = Date.now() - t0;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/may not have been recorded: retry later with the same Idempotency-Key/);
    expect(elapsedMs).toBeLessThan(SEND_TIMEOUT_MS + 1000);

    await waitFor(async () => (await postEvent(gateway.url, token, body, { 'idempotency-key': 'frozen-1' })).status === 200, {
      timeoutMs: 60_000,
      what: 'the retry to be accepted',
    });
    // The same person throughout, so one partition: once this is applied, everything before it was too.
    expect((await postEvent(gateway.url, token, { event: 'after_freeze', email })).status).toBe(200);
    await waitFor(async () => (await catalogNames(accountId)).includes('after_freeze'), { timeoutMs: 60_000, what: 'after_freeze in the catalog' });
    const frozen = (await eventCatalog(testDb('playbook'), accountId)).find((e) => e.name === 'frozen_send');
    expect(frozen?.count).toBe(1);
  }, 120_000);
});
