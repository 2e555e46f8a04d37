// What the batch apply (apply-batch.ts) needs of storage. Declared here, beside the use case, so
// that the domain depends on no database code: data/batch-store.ts implements it with set-based
// SQL, each call one round trip whatever the batch's size.
import type { ReenrollmentPolicy } from './decide-effects.js';
import type { ActiveEnrollment, BatchEvent, BatchPlan, OptedIn } from './plan-batch.js';

/** An effect row (the outbox) as it is published to playbook.effects. */
export interface EffectRecord {
  id: string;
  eventId: string;
  accountId: string;
  playbookId: string;
  email: string;
  action: string;
  at: Date;
  /** A stop made by a suppression or an erasure: its cause (absent for an event's effect). */
  cause?: string | null;
}

export interface AccountsCheck {
  /** The ids among `ids` whose account is not deleted (accounts are the identity part's; the accounts topic tells this service of deletions). */
  known(ids: string[]): Promise<Set<string>>;
}

/** The stand-in of an erased email for an account (createErasedEmail under the service's secret). */
export type ErasedEmail = (accountId: string, email: string) => string;

/** What planBatch needs besides the events, as the batch's reads load it. */
export interface PlanState {
  optedIn: Map<string, OptedIn & { exits: string[]; triggers: string[] }>;
  policies: Map<string, ReenrollmentPolicy>;
  active: ActiveEnrollment[];
  enrolledBefore: Omit<ActiveEnrollment, 'id'>[];
  /** Suppressed people among the batch's, by pairKey(accountId, email). */
  suppressed: Set<string>;
}

/** The reads a plan is made from: the batch apply reads in its transaction, the dry run in a read-only one. */
export interface PlanStateReader {
  /** The opted-in playbooks (with their policies) of the events' names, and their people's enrollments in them. */
  planState(events: readonly BatchEvent[]): Promise<PlanState>;
}

/** One transaction of the batch apply: everything in it commits together or not at all. */
export interface BatchTransaction extends PlanStateReader {
  /** Records the events' ids as processed; returns those not processed before (the others are redeliveries). */
  claimNew(events: readonly BatchEvent[]): Promise<Set<string>>;
  /** The plan's writes, at `at`: stops, starts, effects (the outbox), receipts, catalog changes. */
  write(plan: BatchPlan, at: Date): Promise<void>;
}

export interface BatchStore {
  /** When each (account, stand-in of the email) pair among `pairs` was erased, by pairKey; pairs never erased are missing. */
  erasedAt(pairs: readonly { accountId: string; emailHash: string }[]): Promise<Map<string, number>>;
  /** Runs `work` in one transaction. */
  transaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T>;
  /** The effects of these events not published yet (a crash between commit and publish). */
  unpublishedEffects(eventIds: readonly string[]): Promise<EffectRecord[]>;
}
