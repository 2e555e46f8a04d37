// Playbooks' words, shared by the playbooks page (re-enrollment, its dry run) and event receipts.

// A playbook's re-enrollment policy: what a trigger does for a person enrolled in it before.
export const REENROLLMENT: readonly (readonly [value: string, label: string, what: string])[] = [
  ['when_inactive', 'When inactive', 'a new enrollment only when none is active (the default)'],
  ['once', 'Once', 'at most one enrollment per person, ever'],
  ['restart', 'Restart', 'an active enrollment is stopped and a new one started'],
];
export const DEFAULT_REENROLLMENT = 'when_inactive';
export const policyLabel = (value: string): string => REENROLLMENT.find(([v]) => v === value)?.[1] ?? value;

// Outcomes of a dry run and the reasons of receipts and dry runs, in words.
export const DRY_RUN_OUTCOMES: Readonly<Record<string, string>> = { start: 'Would start', stop: 'Would stop', restart: 'Would restart', none: 'No change' };
const REASONS: Readonly<Record<string, string>> = {
  trigger: 'the event is one of its triggers',
  exit: 'the event is one of its exits and the person is active',
  exit_and_trigger: 'the event is both an exit and a trigger',
  already_active: 'the person is already active in it',
  not_active: 'an exit, but the person is not active in it',
  suppressed: 'the person is suppressed',
  reenrollment_policy: 'its re-enrollment policy',
};

export const reasonText = (reason: string, policy?: string | null): string =>
  reason === 'reenrollment_policy' && policy ? `its re-enrollment policy (${policyLabel(policy).toLowerCase()})` : (REASONS[reason] ?? reason);
