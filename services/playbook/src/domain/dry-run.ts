// A dry run: what an event would do for its person now, per opted-in playbook, computed by the
// consumer's own planner (planBatch) from the consumer's own reads, in a READ ONLY transaction:
// nothing is written (no processed id, no enrollment, no effect, no catalog change). The reads are
// the DryRunStore's (data/dry-run-store.ts).
import { randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import type { PlanStateReader } from './batch-store.js';
import { DEFAULT_LIMITS } from './limits.js';
import type { UnchangedReason } from './decide-effects.js';
import { pairKey, planBatch } from './plan-batch.js';

export type DryRunOutcome = 'start' | 'stop' | 'restart' | 'none';
export type DryRunReason = 'trigger' | 'exit' | 'exit_and_trigger' | UnchangedReason;

export interface DryRunView {
  event: string;
  email: string;
  /** known: in the catalog; new: sending it would add it; full: new, but the catalog is full (it would be applied, not added). */
  catalog: 'known' | 'new' | 'full';
  playbooks: { id: string; name: string; outcome: DryRunOutcome; reason: DryRunReason }[];
}

/** The reads of a dry run, in one read-only transaction (one snapshot). */
export interface DryRunReader extends PlanStateReader {
  /** Whether the name is in the account's catalog (with `maxNames` its cap). */
  inCatalog(accountId: string, name: string, maxNames: number): Promise<boolean>;
  /** How many names the account's catalog holds (at most `maxNames`). */
  catalogSize(accountId: string, maxNames: number): Promise<number>;
  /** The names of the account's playbooks among `ids`, by id. */
  playbookNames(accountId: string, ids: string[]): Promise<Map<string, string>>;
}

export interface DryRunStore {
  readOnly<T>(work: (reader: DryRunReader) => Promise<T>): Promise<T>;
}

export async function dryRunEvent(
  store: DryRunStore,
  accountId: string,
  input: { event: string; email: string },
  { maxCatalogNames = DEFAULT_LIMITS.catalogNamesPerAccount }: { maxCatalogNames?: number } = {},
): Promise<DryRunView> {
  if (!isUuid(accountId)) throw new AppError('not_found', `account ${accountId} does not exist`);
  const event = { eventId: randomUUID(), accountId, email: input.email, name: input.event, receivedAt: new Date().toISOString() };
  return store.readOnly(async (reader) => {
    const state = await reader.planState([event]);
    const plan = planBatch({ events: [event], ...state, newId: randomUUID });
    const known = await reader.inCatalog(accountId, input.event, maxCatalogNames);
    const catalog = known ? 'known' : (await reader.catalogSize(accountId, maxCatalogNames)) >= maxCatalogNames ? 'full' : 'new';
    const opted = state.optedIn.get(pairKey(accountId, input.event)) ?? { exits: [], triggers: [] };
    const ids = [...new Set([...opted.triggers, ...opted.exits])];
    const names = await reader.playbookNames(accountId, ids);
    const receipt = plan.receipts[0];
    const playbooks = ids.map((id) => {
      const actions = new Set((receipt?.changed ?? []).filter((c) => c.playbookId === id).map((c) => c.action));
      const unchanged = receipt?.unchanged.find((u) => u.playbookId === id);
      const both = opted.exits.includes(id) && opted.triggers.includes(id);
      let outcome: DryRunOutcome = 'none';
      let reason: DryRunReason = unchanged?.reason ?? 'not_active';
      if (actions.has('started') && actions.has('stopped')) [outcome, reason] = ['restart', both ? 'exit_and_trigger' : 'reenrollment_policy'];
      else if (actions.has('started')) [outcome, reason] = ['start', 'trigger'];
      else if (actions.has('stopped')) [outcome, reason] = ['stop', 'exit'];
      return { id, name: names.get(id) ?? '', outcome, reason };
    });
    playbooks.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return { event: input.event, email: input.email, catalog, playbooks };
  });
}
