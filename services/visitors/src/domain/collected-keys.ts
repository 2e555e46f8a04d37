// The keys the plan of collected messages looks its rows up by (a visitor's profile, a message's
// dedupe row, an erasure, a link, a rule's firing, a session), and the text a message's fields are
// kept as (times in ISO 8601, paths and addresses without query or fragment).
import type { Collected, Utm } from '@glimpse/messaging';

/** The dedupe row of a bot message: it has no visitor, so its id is qualified by the site. */
export const BOT_VISITOR = 'bot';

export const profileKey = (accountId: string, visitorId: string) => `${accountId}\n${visitorId}`;
export const collectedKey = (accountId: string, visitorId: string, id: string) => `${accountId}\n${visitorId}\n${id}`;
export const erasureKey = (accountId: string, email: string) => `${accountId}\n${email}`;
export const linkKey = (accountId: string, visitorId: string, sourceId: string) => `${profileKey(accountId, visitorId)}\n${sourceId}`;
export const firingKey = (accountId: string, visitorId: string, session: number, ruleId: string) =>
  `${profileKey(accountId, visitorId)}\n${session}\n${ruleId}`;
export const sessionKey = (accountId: string, visitorId: string, number: number) => `${profileKey(accountId, visitorId)}\n${number}`;

/** The dedupe row of any message: (account, visitor, id), a bot's (account, BOT_VISITOR, site:id). */
export function collectedRef(m: Collected): { accountId: string; visitorId: string; id: string } {
  return m.type === 'bot'
    ? { accountId: m.accountId, visitorId: BOT_VISITOR, id: `${m.siteId}:${m.id}` }
    : { accountId: m.accountId, visitorId: m.visitorId, id: m.id };
}

export const iso = (at: string) => new Date(at).toISOString();
export const ms = (at: string) => Date.parse(at);
export const hourOf = (at: string) => {
  const d = new Date(at);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
};

/** An address without its query and fragment (the aggregates never keep either); null if it is no URL. */
export function withoutQuery(address: string | undefined): string | null {
  if (!address) return null;
  try {
    const u = new URL(address);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}

/** The path without query or fragment: cut at the first '?' or '#' (a scan, not a regex). */
export function cleanPath(path: string): string {
  const query = path.indexOf('?');
  const fragment = path.indexOf('#');
  const end = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  return (end < 0 ? path : path.slice(0, end)) || '/';
}

export function cleanUtm(utm: Utm | undefined): Utm | null {
  if (!utm) return null;
  const out: Utm = {};
  for (const k of ['source', 'medium', 'campaign', 'term', 'content'] as const) if (utm[k]) out[k] = utm[k];
  return Object.keys(out).length > 0 ? out : null;
}
