// Credits without a row every lookup updates. An account without a limit is remembered as such for
// a second. An account with one is served from a lease: a block of credits this process took in
// one transaction and spends in memory (JavaScript runs one lookup at a time here, so taking one
// is exact); each spent credit is a usage ledger row naming the lease. A lease is used for
// `useForMs`, well inside its life in the database, so nothing is spent on a lease that has ended.

/** A lease asked of the store; `remaining`: what the account had left beyond this lease when it was granted. */
export type LeaseOutcome = { kind: 'unlimited' } | { kind: 'exhausted' } | { kind: 'granted'; leaseId: string; granted: number; remaining?: number };

/** Where limits and leases are kept (data/credit-repository.ts: enrichment_credits, credit_leases). */
export interface CreditStore {
  limitOf(accountId: string): Promise<number | null>;
  lease(accountId: string): Promise<LeaseOutcome>;
  end(leaseIds: string[]): Promise<void>;
}

/** A credit taken for one lookup: bill it with `leaseId`, then `spent()`; or `refund()` it when nothing matched. */
export interface Credit {
  leaseId: string | null;
  spent(): void;
  refund(): void;
  /**
   * The account's credits left as this process knows them (its lease's rest and what was left
   * beyond it when granted; other processes' leases since are not seen), or null without a limit.
   */
  remaining(): number | null;
}

const UNLIMITED: Credit = { leaseId: null, spent: () => {}, refund: () => {}, remaining: () => null };
// Accounts remembered at most; past it, what has gone stale is forgotten.
const MAX_ACCOUNTS = 10_000;

interface Lease {
  id: string;
  left: number;
  /** What the account had left beyond this lease when it was granted. */
  beyond: number;
  inFlight: number;
  usableUntil: number;
}

type State = { kind: 'unlimited'; until: number } | { kind: 'lease'; lease: Lease };

export interface CreditKeeperOptions {
  store: CreditStore;
  /** How long "no limit" is believed: a limit set later applies within this. */
  unlimitedForMs?: number;
  /** How long a lease is spent from (its life in the database is longer). */
  useForMs?: number;
  now?: () => number;
}

export class CreditKeeper {
  private readonly states = new Map<string, State>();
  private readonly refreshing = new Map<string, Promise<'credit' | 'exhausted'>>();
  private readonly store: CreditStore;
  private readonly unlimitedForMs: number;
  private readonly useForMs: number;
  private readonly now: () => number;

  constructor({ store, unlimitedForMs = 1000, useForMs = 20_000, now = () => performance.now() }: CreditKeeperOptions) {
    this.store = store;
    this.unlimitedForMs = unlimitedForMs;
    this.useForMs = useForMs;
    this.now = now;
  }

  /** A credit for one lookup of the account, or null when it has used all its credits. */
  async take(accountId: string): Promise<Credit | null> {
    for (;;) {
      const credit = this.takeHeld(accountId);
      if (credit) return credit;
      if ((await this.refresh(accountId)) === 'exhausted') return null;
    }
  }

  private takeHeld(accountId: string): Credit | null {
    const state = this.states.get(accountId);
    const now = this.now();
    if (state?.kind === 'unlimited') return now < state.until ? UNLIMITED : null;
    const lease = state?.lease;
    if (!lease || lease.left === 0 || now >= lease.usableUntil) return null;
    lease.left -= 1;
    lease.inFlight += 1;
    let settled = false;
    const settle = (refunded: boolean) => {
      if (settled) return;
      settled = true;
      lease.inFlight -= 1;
      if (refunded) lease.left += 1;
    };
    return { leaseId: lease.id, spent: () => settle(false), refund: () => settle(true), remaining: () => lease.beyond + lease.left };
  }

  /** One refresh per account at a time; concurrent lookups wait for it. */
  private refresh(accountId: string): Promise<'credit' | 'exhausted'> {
    let pending = this.refreshing.get(accountId);
    if (!pending) {
      pending = this.load(accountId).finally(() => this.refreshing.delete(accountId));
      this.refreshing.set(accountId, pending);
    }
    return pending;
  }

  private async load(accountId: string): Promise<'credit' | 'exhausted'> {
    // The plain read first: most accounts have no limit, and need no transaction.
    const outcome: LeaseOutcome = (await this.store.limitOf(accountId)) === null ? { kind: 'unlimited' } : await this.store.lease(accountId);
    if (this.states.size >= MAX_ACCOUNTS) this.forgetStale();
    if (outcome.kind === 'exhausted') {
      this.states.delete(accountId);
      return 'exhausted';
    }
    this.states.set(
      accountId,
      outcome.kind === 'unlimited'
        ? { kind: 'unlimited', until: this.now() + this.unlimitedForMs }
        : {
            kind: 'lease',
            lease: { id: outcome.leaseId, left: outcome.granted, beyond: outcome.remaining ?? 0, inFlight: 0, usableUntil: this.now() + this.useForMs },
          },
    );
    return 'credit';
  }

  private forgetStale(): void {
    const now = this.now();
    for (const [accountId, state] of this.states) {
      const stale = state.kind === 'unlimited' ? now >= state.until : state.lease.inFlight === 0 && (state.lease.left === 0 || now >= state.lease.usableUntil);
      if (stale) this.states.delete(accountId);
    }
  }

  /** Gives back what the held leases did not spend (call when no lookup is in flight, as on shutdown). */
  async release(): Promise<void> {
    const idle = [...this.states.values()].flatMap((s) => (s.kind === 'lease' && s.lease.inFlight === 0 && s.lease.left > 0 ? [s.lease.id] : []));
    this.states.clear();
    await this.store.end(idle);
  }
}
