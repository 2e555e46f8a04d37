// The identifies of a collected batch past what the account's cap admits this minute: removed
// from the batch (in place, the first `keep` stay), before anything reaches Kafka.
import type { CollectedMessage } from '@glimpse/messaging';

export const identifiesIn = (messages: readonly CollectedMessage[]): number => messages.filter((m) => m.type === 'identify').length;

/** Keeps the first `keep` identifies of `messages` and removes the others; how many were removed. */
export function dropIdentifiesBeyond(messages: CollectedMessage[], keep: number): number {
  let seen = 0;
  let removed = 0;
  for (let i = 0; i < messages.length;) {
    if (messages[i]!.type === 'identify' && ++seen > keep) {
      messages.splice(i, 1);
      removed++;
    } else i++;
  }
  return removed;
}
