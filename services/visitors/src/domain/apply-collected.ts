// Applying a chunk of collected messages: one transaction that reads the chunk's state (profiles of
// its visitors, which of its ids are already collected), plans in memory, and writes the plan.
import type { Collected } from '@glimpse/messaging';
import { collectedRef, planCollected, profileKey, type CollectedPlan, type VisitorState } from './plan-collected.js';

export interface VisitorRef {
  accountId: string;
  visitorId: string;
}

export interface ChunkState {
  visitors: Map<string, VisitorState>;
  collected: Set<string>;
}

/** The store a chunk is applied through, inside one transaction. */
export interface CollectedTransaction {
  /** The profiles (by profileKey, locked until the end of the transaction) and the already collected ids (by collectedKey). */
  load(visitors: VisitorRef[], ids: { visitorId: string; id: string }[]): Promise<ChunkState>;
  /** Writes the plan; throws ConcurrentApplyError when another transaction applied some of it first (the chunk is retried). */
  write(plan: CollectedPlan): Promise<void>;
}

export interface CollectedStore {
  inTransaction<T>(fn: (tx: CollectedTransaction) => Promise<T>): Promise<T>;
}

/** Another replica applied part of the chunk meanwhile (a rebalance's overlap): retrying finds it done. */
export class ConcurrentApplyError extends Error {
  constructor(what: string) {
    super(`applied concurrently: ${what}`);
    this.name = 'ConcurrentApplyError';
  }
}

export async function applyCollected(store: CollectedStore, messages: readonly Collected[]): Promise<CollectedPlan> {
  const visitors = new Map<string, VisitorRef>();
  for (const m of messages) if (m.type !== 'bot') visitors.set(profileKey(m.accountId, m.visitorId), { accountId: m.accountId, visitorId: m.visitorId });
  const ids = messages.map(collectedRef);
  return store.inTransaction(async (tx) => {
    const state = await tx.load([...visitors.values()], ids);
    const plan = planCollected({ messages, ...state });
    await tx.write(plan);
    return plan;
  });
}
