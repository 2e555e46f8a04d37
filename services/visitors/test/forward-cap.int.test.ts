// The cap on what tag traffic pushes into playbooks, in the running visitors service: past an
// account's forwards for the window, its tracks are not sent to events.inbound and are counted
// (glimpse_collected_processed_total{outcome="forward_capped"}); another account's still go.
import { randomUUID } from 'node:crypto';
import { TOPICS } from '@glimpse/messaging';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { endOffsets, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import { closeTestDb, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { closeProducer, message, newSite, newVisitorId, produceCollected, type Site } from './collected-messages';

let service: RunningVisitorsService;

beforeAll(async () => {
  // A day's window: the test's messages cannot straddle two windows (but at midnight UTC).
  service = await startTestVisitorsService({ VISITORS_FORWARDS_PER_ACCOUNT_PER_WINDOW: '2', VISITORS_FORWARDS_WINDOW_MS: String(86_400_000) });
});

afterAll(async () => {
  await service?.stop();
  await closeProducer();
  await closeTestDb();
});

async function capped(): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('glimpse_collected_processed_total{outcome="forward_capped"}'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const tracks = (site: Site, count: number) => {
  const v = newVisitorId();
  const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000);
  return [
    message(site, v, 'identify', { email: `cap.${randomUUID().slice(0, 8)}@example.com` }, at(0)),
    ...Array.from({ length: count }, (_, i) => message(site, v, 'track', { event: `step_${i}`, properties: {} }, at(i + 1))),
  ];
};

describe('the cap on events forwarded to playbooks', () => {
  it("when an account's tracks pass its cap, then only the cap's worth reach events.inbound and the rest are counted; another account is unaffected", async () => {
    const busy = newSite();
    const quiet = newSite();
    const before = await capped();
    const from = await endOffsets(TOPICS.eventsInbound);
    await produceCollected([...tracks(busy, 5), ...tracks(quiet, 2)]);

    await waitFor(async () => (await capped()) - before >= 3, { what: 'three forwards to be capped', timeoutMs: 30_000 });
    const read = await readTopic(TOPICS.eventsInbound, { from, until: (all) => ofAccount(all, quiet.accountId).length >= 2 });
    const all = [...read, ...(await readTopic(TOPICS.eventsInbound, { from, to: await endOffsets(TOPICS.eventsInbound) }))];
    const events = (accountId: string) => [...new Set(ofAccount(all, accountId).map((m) => m.json?.event as string))].sort();
    expect(events(busy.accountId)).toEqual(['step_0', 'step_1']);
    expect(events(quiet.accountId)).toEqual(['step_0', 'step_1']);
    expect((await capped()) - before).toBe(3);
  });
});
