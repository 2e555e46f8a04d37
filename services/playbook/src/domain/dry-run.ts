// A dry run: what an event would do for its person now, per opted-in playbook, computed by the
// consumer's own planner (planBatch) from the consumer's own reads, in a READ ONLY transaction:
// nothing is written (no processed id, no enrollment, no effect, no catalog change).
import { randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import type { Db } from '@glimpse/db';
import { isUuid } from '@glimpse/validation';
import { loadPlanState } from '../data/batch-repository.js';
import { catalogSize, namesInCatalog } from '../data/playbook-repository.js';
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

export async function dryRunEvent(
  db: Db,
  accountId: string,
  input: { event: string; email: string },
  { maxCatalogNames = DEFAULT_LIMITS.catalogNamesPerAccount }: { maxCatalogNames?: number } = {},
): Promise<DryRunView> {
  if (!isUuid(accountId)) throw new AppError('not_found', `account ${accountId} does not exist`);
  const event = { eventId: randomUUID(), accountId, email: input.email, name: input.event, receivedAt: new Date().toISOString() };
  return db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET TRANSACTION READ ONLY');
    const state = await loadPlanState(tx, [event]);
    const plan = planBatch({ events: [event], ...state, newId: randomUUID });
    const known = (await namesInCatalog(tx, accountId, [input.event], maxCatalogNames)).has(input.event);
    const catalog = known ? 'known' : (await catalogSize(tx, accountId, maxCatalogNames)) >= maxCatalogNames ? 'full' : 'new';
    const opted = state.optedIn.get(pairKey(accountId, input.event)) ?? { exits: [], triggers: [] };
    const ids = [...new Set([...opted.triggers, ...opted.exits])];
    const names = new Map(
      (await tx.playbook.findMany({ where: { id: { in: ids }, accountId }, select: { id: true, name: true } })).map((p) => [p.id, p.name]),
    );
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
