// The batch apply, the main write path: a chunk of inbound events, applied in one transaction.
//   1. the account check: events of deleted accounts are dropped;
//   2. the erasure filter: events of a person erased after the gateway received them (accepted
//      before the erasure, still queued in Kafka when it ran) are dropped;
//   3. in one transaction: the dedupe (ids already processed change nothing), the two reads, the
//      plan (planBatch, pure, in memory), and the plan's writes;
//   4. the effects to publish: the new ones, and the still unpublished effects of redelivered
//      events, so a crash between commit and publish is repaired by the redelivery.
// Storage is the BatchStore's (data/batch-store.ts: set-based SQL, one round trip a statement).
import { randomUUID } from 'node:crypto';
import type { AccountsCheck, BatchStore, EffectRecord, ErasedEmail } from './batch-store.js';
import { pairKey, planBatch, type BatchEvent, type BatchPlan } from './plan-batch.js';

export interface InboundEventFields {
  eventId: string;
  accountId: string;
  email: string;
  /** The event's name. */
  event: string;
  receivedAt: string;
}

export interface BatchOutcome {
  applied: number;
  duplicates: number;
  deletedAccount: number;
  /** Events of a person erased after the gateway accepted them (still queued at the erasure): dropped. */
  erased: number;
  /** New effects, and the still unpublished effects of redelivered events: to publish now. */
  effects: EffectRecord[];
}

export interface ApplyBatchDeps {
  store: BatchStore;
  accounts: AccountsCheck;
  erasedEmail: ErasedEmail;
  newId?: () => string;
}

export async function applyBatch(
  { store, accounts, erasedEmail, newId = randomUUID }: ApplyBatchDeps,
  events: readonly InboundEventFields[],
  now = new Date(),
): Promise<BatchOutcome> {
  if (events.length === 0) return { applied: 0, duplicates: 0, deletedAccount: 0, erased: 0, effects: [] };
  const live = await liveEvents(accounts, events);
  const deletedAccount = events.length - live.length;
  const beforeErasure = await erasedBefore(store, live, erasedEmail);
  const candidates = live.filter((e) => !beforeErasure.has(e.eventId));
  const erased = live.length - candidates.length;
  if (candidates.length === 0) return { applied: 0, duplicates: 0, deletedAccount, erased, effects: [] };

  const { plan, repeated } = await store.transaction(async (tx) => {
    const fresh = await tx.claimNew(candidates);
    const events = candidates.filter((e) => fresh.has(e.eventId));
    const repeated = [...new Set(candidates.filter((e) => !fresh.has(e.eventId)).map((e) => e.eventId))];
    if (events.length === 0) return { plan: undefined, repeated };
    const plan = planBatch({ events, ...(await tx.planState(events)), newId });
    await tx.write(plan, now);
    return { plan, repeated };
  });

  const effects = plannedEffects(plan, now);
  if (repeated.length > 0) effects.push(...(await store.unpublishedEffects(repeated)));
  // The events of the batch that were new (repeats of an id within the batch count as duplicates).
  const applied = plan?.applied.length ?? 0;
  return { applied, duplicates: candidates.length - applied, deletedAccount, erased, effects };
}

/** The events whose account is not deleted, as the planner takes them. */
async function liveEvents(accounts: AccountsCheck, events: readonly InboundEventFields[]): Promise<BatchEvent[]> {
  const known = await accounts.known(events.map((e) => e.accountId));
  return events
    .filter((e) => known.has(e.accountId))
    .map((e) => ({ eventId: e.eventId, accountId: e.accountId, email: e.email, name: e.event, receivedAt: e.receivedAt }));
}

/**
 * The events (ids) of persons erased after the gateway received them: accepted before the erasure,
 * still queued in Kafka when it ran. One lookup per batch by (account, stand-in of the email).
 */
export async function erasedBefore(store: Pick<BatchStore, 'erasedAt'>, events: readonly BatchEvent[], erasedEmail: ErasedEmail): Promise<Set<string>> {
  const hashes = events.map((e) => erasedEmail(e.accountId, e.email));
  const erasedAt = await store.erasedAt(events.map((e, i) => ({ accountId: e.accountId, emailHash: hashes[i]! })));
  const dropped = new Set<string>();
  if (erasedAt.size === 0) return dropped;
  events.forEach((e, i) => {
    const at = erasedAt.get(pairKey(e.accountId, hashes[i]!));
    if (at !== undefined && Date.parse(e.receivedAt) <= at) dropped.add(e.eventId);
  });
  return dropped;
}

/** The plan's effects as the outbox holds them, to publish right after the commit. */
function plannedEffects(plan: BatchPlan | undefined, at: Date): EffectRecord[] {
  return (plan?.effects ?? []).map((e) => ({
    id: e.id,
    eventId: e.eventId,
    accountId: e.accountId,
    playbookId: e.playbookId,
    email: e.email,
    action: e.action,
    at,
  }));
}
