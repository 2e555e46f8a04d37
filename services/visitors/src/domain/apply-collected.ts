// Applying a chunk of collected messages: one transaction that reads the chunk's state (profiles of
// its visitors, which of its ids are already collected, its accounts' page rules and firings, the
// erasures of its emails), plans in memory, and writes the plan.
import type { Collected } from '@glimpse/messaging';
import {
  collectedRef,
  planCollected,
  profileKey,
  type CollectedPlan,
  type CompanyVisitWrite,
  type FiringRow,
  type NetworkInfo,
  type PageRule,
  type VisitorState,
} from './plan-collected.js';
import type { IntentSettings } from './intent-score.js';

export interface VisitorRef {
  accountId: string;
  visitorId: string;
}

/** What a chunk needs read before it is planned. */
export interface ChunkRequest {
  /** Its visitors and the cookieless ones its consents name. */
  visitors: VisitorRef[];
  ids: { accountId: string; visitorId: string; id: string }[];
  accounts: string[];
  /** Page view addresses (never stored: looked up only). */
  ips: string[];
  identifies: { accountId: string; visitorId: string; id: string; email: string }[];
  /** The chunk's earliest time: firings from then on are loaded (a redelivery sends them again). */
  since: string;
}

export interface ChunkState {
  visitors: Map<string, VisitorState>;
  collected: Set<string>;
  rules: PageRule[];
  firings: FiringRow[];
  /** The accounts' intent settings (an account without a row is missing: the defaults). */
  intent: Map<string, IntentSettings>;
  erasures: Map<string, string>;
  links: Set<string>;
}

/** The store a chunk is applied through, inside one transaction. */
export interface CollectedTransaction {
  /** The profiles (by profileKey, locked until the end of the transaction), the already collected ids (by collectedKey), and the rest of the chunk's state. */
  load(request: ChunkRequest): Promise<ChunkState>;
  /**
   * Writes the plan; throws ConcurrentApplyError when another transaction applied some of it first (the
   * chunk is retried). Answers the company visits to announce: those this plan made first, and the
   * redelivered ones whose row this very visit made.
   */
  write(plan: CollectedPlan): Promise<CompanyVisitWrite[]>;
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

export function chunkRequest(messages: readonly Collected[]): ChunkRequest {
  const visitors = new Map<string, VisitorRef>();
  const accounts = new Set<string>();
  const ips = new Set<string>();
  const identifies: ChunkRequest['identifies'] = [];
  let since = Infinity;
  for (const m of messages) {
    accounts.add(m.accountId);
    since = Math.min(since, Date.parse(m.receivedAt));
    if (m.type === 'bot') continue;
    visitors.set(profileKey(m.accountId, m.visitorId), { accountId: m.accountId, visitorId: m.visitorId });
    if (m.type === 'consent' && m.cookielessId) visitors.set(profileKey(m.accountId, m.cookielessId), { accountId: m.accountId, visitorId: m.cookielessId });
    if (m.type === 'pageview' && m.ip) ips.add(m.ip);
    if (m.type === 'identify') identifies.push({ accountId: m.accountId, visitorId: m.visitorId, id: m.id, email: m.email });
  }
  return {
    visitors: [...visitors.values()],
    ids: messages.map(collectedRef),
    accounts: [...accounts],
    ips: [...ips],
    identifies,
    since: new Date(Number.isFinite(since) ? since : Date.now()).toISOString(),
  };
}

/** What a chunk's addresses say, from the replica's IP data (looked up once per distinct address). */
export type AddressLookup = (address: string) => NetworkInfo;

export interface AppliedChunk {
  plan: CollectedPlan;
  /** The company.visited announcements to send. */
  companyVisited: CompanyVisitWrite[];
}

export async function applyCollected(
  store: CollectedStore,
  messages: readonly Collected[],
  options: { lookup?: AddressLookup; companyWindowMs?: number } = {},
): Promise<AppliedChunk> {
  const request = chunkRequest(messages);
  const networks = new Map<string, NetworkInfo>();
  if (options.lookup) for (const ip of request.ips) networks.set(ip, options.lookup(ip));
  return store.inTransaction(async (tx) => {
    const state = await tx.load(request);
    const plan = planCollected({ messages, ...state, networks, companyWindowMs: options.companyWindowMs });
    const companyVisited = await tx.write(plan);
    return { plan, companyVisited };
  });
}
