// What a batch of events does, computed in memory from what the batch's two reads loaded (the
// opted-in playbooks of its (account, name) pairs and the active enrollments of its people): the
// events are walked in offset order, each person's enrollments carried from one event to the next,
// so the outcome is exactly that of applying them one by one (an exit and a trigger for the same
// person in one batch included). Pure: ids and times come from the caller.
import { decideEffects, type ReenrollmentPolicy, type UnchangedReason } from './decide-effects.js';

export interface BatchEvent {
  eventId: string;
  accountId: string;
  email: string;
  name: string;
  /** The gateway's receive time (ISO 8601). */
  receivedAt: string;
}

export interface OptedIn {
  exits: readonly string[];
  triggers: readonly string[];
}

export interface ActiveEnrollment {
  id: string;
  playbookId: string;
  accountId: string;
  email: string;
}

/** An enrollment the batch starts; stopped already when a later event of the batch stopped it. */
export interface NewEnrollment {
  id: string;
  playbookId: string;
  accountId: string;
  email: string;
  startedBy: string;
  startEventId: string;
  status: 'active' | 'stopped';
  stoppedBy: string | null;
  stopEventId: string | null;
}

/** An enrollment that was active before the batch and that the batch stops. */
export interface EnrollmentStop {
  enrollmentId: string;
  stoppedBy: string;
  stopEventId: string;
}

export interface PlannedEffect {
  id: string;
  eventId: string;
  accountId: string;
  playbookId: string;
  email: string;
  action: 'started' | 'stopped';
  eventName: string;
}

/** One catalog row's change: the batch's count of the name and its first and last receive times. */
export interface CatalogDelta {
  accountId: string;
  name: string;
  firstSeenAt: string;
  lastSeenAt: string;
  count: number;
}

/** What one event did: the playbooks it started or stopped, and why each other opted-in playbook was left as it was. */
export interface EventReceipt {
  eventId: string;
  accountId: string;
  eventName: string;
  changed: { playbookId: string; action: 'started' | 'stopped' }[];
  unchanged: { playbookId: string; reason: UnchangedReason }[];
}

export interface BatchPlan {
  /** The events applied, in order (repeats of an event id within the batch left out). */
  applied: BatchEvent[];
  starts: NewEnrollment[];
  stops: EnrollmentStop[];
  effects: PlannedEffect[];
  /** One per applied event that opts in to at least one playbook. */
  receipts: EventReceipt[];
  /** Sorted by account and name: every transaction locks catalog rows in the same order. */
  catalog: CatalogDelta[];
}

export const pairKey = (accountId: string, value: string) => `${accountId}\n${value}`;

export interface PlanInput {
  /** The batch's new events (not applied before), in offset order. */
  events: readonly BatchEvent[];
  /** Opted-in playbooks by pairKey(accountId, name); a pair without playbooks may be missing. */
  optedIn: ReadonlyMap<string, OptedIn>;
  /** The active enrollments, before the batch, of the batch's people (any playbooks). */
  active: readonly ActiveEnrollment[];
  /** Re-enrollment policy by playbook id (missing: when_inactive). */
  policies?: ReadonlyMap<string, ReenrollmentPolicy>;
  /** Stopped enrollments of the batch's people in its `once` playbooks (whether they were ever enrolled). */
  enrolledBefore?: readonly Omit<ActiveEnrollment, 'id'>[];
  /** Suppressed people, by pairKey(accountId, email): their triggers start nothing. */
  suppressed?: ReadonlySet<string>;
  newId(): string;
}

/** A person's active enrollment in a playbook as the walk goes: one from the database (its id), or one this batch started. */
type CurrentEnrollment = { existing: string } | { started: NewEnrollment };

/** What the walk knows of each person: playbook id → the active enrollment, and every playbook they were ever in. */
interface People {
  current(personKey: string): Map<string, CurrentEnrollment>;
  everIn(personKey: string): Set<string>;
}

/** The people's enrollments before the batch: the active ones, and the playbooks each was ever in. */
function peopleBefore(active: readonly ActiveEnrollment[], enrolledBefore: readonly Omit<ActiveEnrollment, 'id'>[]): People {
  const people = new Map<string, Map<string, CurrentEnrollment>>();
  const ever = new Map<string, Set<string>>();
  const everOf = (key: string) => ever.get(key) ?? (ever.set(key, new Set()), ever.get(key)!);
  for (const a of active) {
    const key = pairKey(a.accountId, a.email);
    const current = people.get(key) ?? new Map<string, CurrentEnrollment>();
    current.set(a.playbookId, { existing: a.id });
    people.set(key, current);
    everOf(key).add(a.playbookId);
  }
  for (const b of enrolledBefore) everOf(pairKey(b.accountId, b.email)).add(b.playbookId);
  return {
    current(key) {
      let current = people.get(key);
      if (!current) people.set(key, (current = new Map()));
      return current;
    },
    everIn: everOf,
  };
}

type CatalogEntry = CatalogDelta & { first: number; last: number };

/** Counts an event's name in the batch's catalog changes, keeping its first and last receive times. */
function countName(catalog: Map<string, CatalogEntry>, nameKey: string, { accountId, name, receivedAt }: BatchEvent): void {
  const at = Date.parse(receivedAt);
  const entry = catalog.get(nameKey);
  if (!entry) catalog.set(nameKey, { accountId, name, firstSeenAt: receivedAt, lastSeenAt: receivedAt, count: 1, first: at, last: at });
  else {
    entry.count += 1;
    if (at < entry.first) Object.assign(entry, { first: at, firstSeenAt: receivedAt });
    if (at > entry.last) Object.assign(entry, { last: at, lastSeenAt: receivedAt });
  }
}

/** The catalog changes sorted by account and name. */
function sortedCatalog(catalog: Map<string, CatalogEntry>): CatalogDelta[] {
  return [...catalog.values()]
    .map(({ accountId, name, firstSeenAt, lastSeenAt, count }) => ({ accountId, name, firstSeenAt, lastSeenAt, count }))
    .sort((a, b) => (a.accountId === b.accountId ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.accountId < b.accountId ? -1 : 1));
}

/** The enrollments one event stops and starts, given what its person has as the walk goes. */
interface Decided {
  event: BatchEvent;
  stop: readonly string[];
  start: readonly string[];
  current: Map<string, CurrentEnrollment>;
  everIn: Set<string>;
}

/** Applies one event's decision to the plan: the stops, the starts and their effects, recorded in its receipt. */
function applyDecision(plan: BatchPlan, receipt: EventReceipt, { event, stop, start, current, everIn }: Decided, newId: () => string): void {
  const { eventId, accountId, email, name } = event;
  const effect = (playbookId: string, action: PlannedEffect['action']) => {
    plan.effects.push({ id: newId(), eventId, accountId, playbookId, email, action, eventName: name });
    receipt.changed.push({ playbookId, action });
  };
  for (const playbookId of stop) {
    const h = current.get(playbookId)!;
    if ('existing' in h) plan.stops.push({ enrollmentId: h.existing, stoppedBy: name, stopEventId: eventId });
    else Object.assign(h.started, { status: 'stopped', stoppedBy: name, stopEventId: eventId });
    current.delete(playbookId);
    effect(playbookId, 'stopped');
  }
  for (const playbookId of start) {
    const started: NewEnrollment = {
      id: newId(),
      playbookId,
      accountId,
      email,
      startedBy: name,
      startEventId: eventId,
      status: 'active',
      stoppedBy: null,
      stopEventId: null,
    };
    plan.starts.push(started);
    current.set(playbookId, { started });
    everIn.add(playbookId);
    effect(playbookId, 'started');
  }
}

export function planBatch({ events, optedIn, active, policies, enrolledBefore = [], suppressed, newId }: PlanInput): BatchPlan {
  const people = peopleBefore(active, enrolledBefore);
  const seen = new Set<string>();
  const plan: BatchPlan = { applied: [], starts: [], stops: [], effects: [], receipts: [], catalog: [] };
  const catalog = new Map<string, CatalogEntry>();

  for (const event of events) {
    if (seen.has(event.eventId)) continue;
    seen.add(event.eventId);
    plan.applied.push(event);
    const { eventId, accountId, email, name } = event;
    const nameKey = pairKey(accountId, name);
    countName(catalog, nameKey, event);

    const playbooks = optedIn.get(nameKey);
    if (!playbooks || (playbooks.exits.length === 0 && playbooks.triggers.length === 0)) continue;
    const personKey = pairKey(accountId, email);
    const current = people.current(personKey);
    const everIn = people.everIn(personKey);
    const decision = decideEffects({
      exitPlaybookIds: playbooks.exits,
      triggerPlaybookIds: playbooks.triggers,
      activePlaybookIds: [...current.keys()],
      policies,
      everEnrolledPlaybookIds: [...everIn],
      suppressed: suppressed?.has(personKey) ?? false,
    });
    const receipt: EventReceipt = { eventId, accountId, eventName: name, changed: [], unchanged: decision.unchanged };
    plan.receipts.push(receipt);
    applyDecision(plan, receipt, { event, stop: decision.stop, start: decision.start, current, everIn }, newId);
  }

  plan.catalog = sortedCatalog(catalog);
  return plan;
}
