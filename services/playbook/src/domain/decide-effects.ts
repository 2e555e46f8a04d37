// What one event does to one person's playbooks (spec §4.3 rule 2): stop every active enrollment
// in a playbook that exits on the name, start one in every playbook triggered by it. A playbook
// that both exits and triggers on the name restarts; one already active and only triggered is left be.

export interface EffectInputs {
  exitPlaybookIds: readonly string[];
  triggerPlaybookIds: readonly string[];
  /** Playbooks in which the person has an active enrollment now. */
  activePlaybookIds: readonly string[];
}

export interface EffectDecision {
  stop: string[];
  start: string[];
}

export function decideEffects({ exitPlaybookIds, triggerPlaybookIds, activePlaybookIds }: EffectInputs): EffectDecision {
  const active = new Set(activePlaybookIds);
  const exits = new Set(exitPlaybookIds);
  const stop = [...exits].filter((id) => active.has(id));
  const start = [...new Set(triggerPlaybookIds)].filter((id) => !active.has(id) || exits.has(id));
  return { stop, start };
}
