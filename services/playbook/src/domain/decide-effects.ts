// What one event does to one person's playbooks (api.md §4.3 rule 2): stop every active enrollment
// in a playbook that exits on the name, start one in every playbook triggered by it, as each
// playbook's re-enrollment policy allows:
//   when_inactive (the default): a trigger starts only when the person is not active in it (a
//     playbook that both exits and triggers on the name restarts);
//   restart: a trigger while active stops the enrollment and starts it again;
//   once: a trigger starts only if the person was never enrolled in it.
// A suppressed person starts nothing (exits still stop). Every opted-in playbook the event leaves
// as it was is listed with the reason, for the event's receipt.

export const REENROLLMENT_POLICIES = ['once', 'when_inactive', 'restart'] as const;
export type ReenrollmentPolicy = (typeof REENROLLMENT_POLICIES)[number];
export const DEFAULT_REENROLLMENT: ReenrollmentPolicy = 'when_inactive';

/** Why an opted-in playbook was left as it was. */
export type UnchangedReason = 'already_active' | 'not_active' | 'suppressed' | 'reenrollment_policy';

export interface EffectInputs {
  exitPlaybookIds: readonly string[];
  triggerPlaybookIds: readonly string[];
  /** Playbooks in which the person has an active enrollment now. */
  activePlaybookIds: readonly string[];
  /** Re-enrollment policy by playbook id; a playbook not listed is when_inactive. */
  policies?: ReadonlyMap<string, ReenrollmentPolicy>;
  /** Playbooks in which the person has ever been enrolled (active or stopped); needed for `once`. */
  everEnrolledPlaybookIds?: readonly string[];
  /** The person is suppressed: no trigger starts anything. */
  suppressed?: boolean;
}

export interface EffectDecision {
  stop: string[];
  start: string[];
  unchanged: { playbookId: string; reason: UnchangedReason }[];
}

export function decideEffects({
  exitPlaybookIds,
  triggerPlaybookIds,
  activePlaybookIds,
  policies,
  everEnrolledPlaybookIds = [],
  suppressed = false,
}: EffectInputs): EffectDecision {
  const active = new Set(activePlaybookIds);
  const ever = new Set(everEnrolledPlaybookIds);
  const exits = new Set(exitPlaybookIds);
  const triggers = new Set(triggerPlaybookIds);
  const stop = [...exits].filter((id) => active.has(id));
  const stopping = new Set(stop);
  const start: string[] = [];
  const unchanged: EffectDecision['unchanged'] = [];
  const leave = (playbookId: string, reason: UnchangedReason) => {
    if (!stopping.has(playbookId)) unchanged.push({ playbookId, reason });
  };
  for (const id of triggers) {
    const policy = policies?.get(id) ?? DEFAULT_REENROLLMENT;
    if (suppressed) leave(id, 'suppressed');
    else if (policy === 'once') {
      if (ever.has(id) || active.has(id)) leave(id, active.has(id) && !stopping.has(id) ? 'already_active' : 'reenrollment_policy');
      else start.push(id);
    } else if (policy === 'restart') {
      if (active.has(id) && !stopping.has(id)) {
        stop.push(id);
        stopping.add(id);
      }
      start.push(id);
    } else if (active.has(id) && !exits.has(id)) leave(id, 'already_active');
    else start.push(id);
  }
  for (const id of exits) if (!active.has(id) && !triggers.has(id)) leave(id, 'not_active');
  return { stop, start, unchanged };
}
