// The consumer group on visitors.collected: the shared batch consumer (createBatchConsumer in
// @glimpse/messaging: chunks, bisecting, dead letters, lag and stuck detection) applying collected
// messages. A chunk is one transaction (applyCollected); then the track and page-rule events of
// identified visitors (of accounts with the workflows add-on when collected) are sent to events.inbound and its new identity links to visitors.identified (retried until done while the partition is ours), and only
// then are the offsets committed. A crash before that redelivers the chunk: it changes nothing and
// sends its tracks again under the same eventIds, which the playbook service dedups.
import type { KafkaMessage } from 'kafkajs';
import { PRISMA_TRANSACTION_TIMEOUT, postgresProbe } from '@glimpse/db';
import { type Db } from '@glimpse/db/visitors';
import { dependencyFailure } from '@glimpse/errors';
import {
  TOPICS,
  collectedSchema,
  createBatchConsumer,
  createProcessedCounter,
  outageCheck,
  personKey,
  visitorIdentifiedSchema,
  companyVisitedSchema,
  type CompanyVisitedMessage,
  type BatchConsumer,
  type BatchConsumerSettings,
  type BatchingProducer,
  type Collected,
  type InboundEvent,
  type ParseResult,
  type VisitorIdentifiedMessage,
} from '@glimpse/messaging';
import { applyCollected, ConcurrentApplyError, type AddressLookup } from '../domain/apply-collected.js';
import { profileKey, type CollectedPlan, type CompanyVisitWrite, type IdentifiedMessage, type TrackForward } from '../domain/plan-collected.js';
import { createForwardCap } from '../domain/forward-cap.js';
import { companyVisitedEventId } from '../domain/track-event-id.js';
import { collectedStore } from '../data/collected-store.js';

/** The batch consumer's settings (passed through to it; fetch linger gives fuller chunks while it keeps up), and what applying needs. */
export interface CollectedConsumerOptions extends BatchConsumerSettings {
  db: Db;
  /** The HMAC key of erasure tombstones. */
  erasureSecret: string;
  /** What an address says, from the IP data in memory (the lookup of the moment). */
  lookup?: () => AddressLookup;
  /** The window of company.visited (ms). */
  companyWindowMs?: number;
  /** Tracks and page-rule events forwarded to events.inbound per account and window (ms), on this replica; past it they are not sent. */
  forwardCap?: { perWindow: number; windowMs: number };
}

export function parseCollected(message: KafkaMessage): ParseResult<Collected> {
  try {
    const parsed = collectedSchema.safeParse(JSON.parse(message.value?.toString('utf8') ?? ''));
    // Paths and codes only: a message's values (emails, addresses) never reach a dead letter's reason.
    return parsed.success
      ? parsed.data
      : {
          invalid: parsed.error.issues
            .map((i) => `${i.path.join('.')}: ${i.code}`)
            .join('; ')
            .slice(0, 500),
        };
  } catch {
    return { invalid: 'not JSON' };
  }
}

function inboundEvent(f: TrackForward): InboundEvent {
  return { eventId: f.eventId, accountId: f.accountId, event: f.event, email: f.email, properties: f.properties, receivedAt: f.receivedAt };
}

function identifiedMessage(i: IdentifiedMessage): VisitorIdentifiedMessage {
  return visitorIdentifiedSchema.parse({
    eventId: i.eventId,
    accountId: i.accountId,
    siteId: i.siteId,
    visitorId: i.visitorId,
    method: i.method,
    confidence: i.confidence,
    verified: i.verified,
    email: i.email,
    at: i.at,
  });
}

/** A company's first visit as its message: the name, domain, network and location the visitor has after the chunk. */
function companyVisitedMessage(c: CompanyVisitWrite, plan: CollectedPlan): CompanyVisitedMessage {
  const v = plan.profiles.find((p) => profileKey(p.accountId, p.visitorId) === profileKey(c.accountId, c.visitorId));
  const fromNetwork = v?.company && (v.company.domain ?? v.company.name).toLowerCase() === c.company ? v.company : null;
  return companyVisitedSchema.parse({
    eventId: companyVisitedEventId(c.accountId, c.siteId, c.company, c.windowStart),
    accountId: c.accountId,
    siteId: c.siteId,
    company: c.company,
    name: fromNetwork?.name ?? null,
    domain: fromNetwork ? fromNetwork.domain : c.company.includes('.') && !c.company.includes(' ') ? c.company : null,
    visitorId: c.visitorId,
    windowStart: c.windowStart,
    at: c.at,
    network: v?.network ? { name: v.network.name, type: v.network.type, asn: v.network.asn } : null,
    location: v?.location ?? null,
  });
}

/** The chunk's sends after its transaction: tracks and page-rule events to events.inbound, new links to visitors.identified, companies' first visits to visitors.companies. */
function sendsOf(plan: CollectedPlan, visited: CompanyVisitWrite[], producer: BatchingProducer): () => Promise<void> {
  return async () => {
    await Promise.all([
      ...visited.map((c) =>
        producer.send(TOPICS.visitorsCompanies, { key: `${c.accountId}:${c.siteId}:${c.company}`, value: JSON.stringify(companyVisitedMessage(c, plan)) }),
      ),
      ...plan.forwards.map((f) => producer.send(TOPICS.eventsInbound, { key: personKey(f.accountId, f.email), value: JSON.stringify(inboundEvent(f)) })),
      ...plan.identified.map((i) =>
        producer.send(TOPICS.visitorsIdentified, { key: `${i.accountId}:${i.visitorId}`, value: JSON.stringify(identifiedMessage(i)) }),
      ),
    ]);
  };
}

export function createCollectedConsumer(options: CollectedConsumerOptions): BatchConsumer {
  const { db, producer } = options;
  const store = collectedStore(db, { erasureSecret: options.erasureSecret });
  const forwardCap = options.forwardCap ? createForwardCap(options.forwardCap) : undefined;
  const processed = createProcessedCounter(
    options.registry,
    'glimpse_collected_processed_total',
    'Collected messages handled by the visitors service, by outcome',
  );
  const batch = createBatchConsumer<Collected>({
    ...options,
    topic: TOPICS.visitorsCollected,
    deadLetterTopic: TOPICS.visitorsDeadLetter,
    processed,
    stuckSetting: 'VISITORS_STUCK_AFTER_MS',
    parse: parseCollected,
    async apply(items, lease) {
      const { plan, companyVisited } = await applyCollected(
        store,
        items.map((i) => i.value),
        { lookup: options.lookup?.(), companyWindowMs: options.companyWindowMs },
      );
      const { applied, duplicates, bots, tracksUnidentified, identifiesDropped, rulesFired, withoutAddon } = plan.counts;
      if (applied - bots) processed.inc({ outcome: 'applied' }, applied - bots);
      if (bots) processed.inc({ outcome: 'bot' }, bots);
      if (duplicates) processed.inc({ outcome: 'duplicate' }, duplicates);
      if (tracksUnidentified) processed.inc({ outcome: 'track_unidentified' }, tracksUnidentified);
      if (identifiesDropped) processed.inc({ outcome: 'identify_dropped' }, identifiesDropped);
      if (rulesFired) processed.inc({ outcome: 'page_rule_fired' }, rulesFired);
      // Tracks and rule matches of accounts without the workflows add-on: visits, not events.
      if (withoutAddon) processed.inc({ outcome: 'workflows_addon_missing' }, withoutAddon);
      // Past its account's cap, a track or page-rule event is not sent to playbooks (decided once, before the retried sends).
      const sending = forwardCap ? { ...plan, forwards: forwardCap.admit(plan.forwards) } : plan;
      const capped = plan.forwards.length - sending.forwards.length;
      if (capped) processed.inc({ outcome: 'forward_capped' }, capped);
      if (sending.forwards.length === 0 && plan.identified.length === 0 && companyVisited.length === 0) return;
      // Committed: only the sends are left, retried until done (a redelivery would send them again, same ids).
      await batch.untilDone(sendsOf(sending, companyVisited, producer), lease);
      if (companyVisited.length) processed.inc({ outcome: 'company_visited_published' }, companyVisited.length);
      if (sending.forwards.length) processed.inc({ outcome: 'track_forwarded' }, sending.forwards.length);
      if (plan.identified.length) processed.inc({ outcome: 'identified_published' }, plan.identified.length);
    },
    // Postgres down, timing out, or a concurrent apply of the same visitor (retrying finds it done): not the messages' fault.
    isOutage: outageCheck({
      known: (err) => err instanceof ConcurrentApplyError || dependencyFailure(err) !== null || (err as { code?: unknown }).code === PRISMA_TRANSACTION_TIMEOUT,
      probe: postgresProbe(db),
    }),
  });
  return batch;
}
