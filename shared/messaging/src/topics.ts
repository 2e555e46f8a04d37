// Topic names and their settings; scripts/infra creates them with these same values.
export const TOPICS = {
  eventsInbound: 'events.inbound',
  eventsDeadLetter: 'events.inbound.dlq',
  playbookEffects: 'playbook.effects',
} as const;

/** Messages are keyed by account and person so one person's events stay in order. */
export function personKey(accountId: string, email: string): string {
  return `${accountId}:${email}`;
}
