// Bots by user agent, with isbot's maintained list: what matched (the message's reason) and a
// bounded label for the metric (a user agent is client-chosen, so its text cannot be a label).
import { isbotMatch } from 'isbot';

export interface BotVerdict {
  /** The part of the user agent the list matched (or why it is a bot without one). */
  reason: string;
}

/** A bot, or null for a browser. No user agent at all is a bot: every browser sends one. */
export function detectBot(userAgent: string | undefined): BotVerdict | null {
  if (userAgent === undefined || userAgent.trim() === '') return { reason: 'no user agent' };
  const match = isbotMatch(userAgent);
  return match === null ? null : { reason: match.slice(0, 128) };
}

/** Metric labels: the first `max` distinct reasons seen (lower-case letters, 32 at most), then "other". */
export function createReasonLabels(max = 50): (reason: string) => string {
  const seen = new Set<string>();
  return (reason) => {
    const label =
      reason
        .toLowerCase()
        .replace(/[^a-z]+/g, '_')
        .replace(/^_|_$/g, '')
        .slice(0, 32) || 'other';
    if (seen.has(label)) return label;
    if (seen.size >= max) return 'other';
    seen.add(label);
    return label;
  };
}
