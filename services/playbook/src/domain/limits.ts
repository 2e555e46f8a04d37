// What one account may have in this service. Past a cap: 409 limit_reached. A cap holds when
// creations race because the store counts and inserts under the account's lock (data/account-lock.ts).
import { AppError } from '@glimpse/errors';

export interface PlaybookLimits {
  /** Playbooks of an account (PLAYBOOKS_PER_ACCOUNT). */
  playbooksPerAccount: number;
  /** Triggers of one playbook (TRIGGERS_PER_PLAYBOOK). */
  triggersPerPlaybook: number;
  /** Exits of one playbook (EXITS_PER_PLAYBOOK). */
  exitsPerPlaybook: number;
  /** Event names in an account's catalog (CATALOG_NAMES_PER_ACCOUNT): past it a new name is applied but not catalogued. */
  catalogNamesPerAccount: number;
  /** Suppressed people of an account (SUPPRESSIONS_PER_ACCOUNT). */
  suppressionsPerAccount: number;
}

export const DEFAULT_LIMITS: Readonly<PlaybookLimits> = {
  playbooksPerAccount: 200,
  triggersPerPlaybook: 50,
  exitsPerPlaybook: 50,
  catalogNamesPerAccount: 1000,
  suppressionsPerAccount: 100_000,
};

export const limitsWith = (limits: Partial<PlaybookLimits> = {}): PlaybookLimits => ({ ...DEFAULT_LIMITS, ...definedOnly(limits) });

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A list longer than its cap (a playbook's triggers or exits): 409 naming the cap. */
export function assertListCap(values: readonly string[], max: number, what: 'triggers' | 'exits'): void {
  if (values.length > max) throw new AppError('limit_reached', `a playbook has at most ${max} ${what}; this one would have ${values.length}`);
}
