// On consent, the day's cookieless visitor of the same browser folds into the new persistent one:
// counts summed, first/last seen widened, pages merged, and its sessions numbered after the
// visitor's (the current session becomes the cookieless one's last, when it had any). Pure.
import type { SessionWrite, VisitorState } from './collected-records.js';

const LAST_PAGES = 20;
const ms = (at: string) => Date.parse(at);

/**
 * Merges `from` into `to` (mutated) and renames `from`'s pending session writes of this chunk;
 * returns the offset its stored sessions' numbers move by.
 */
export function mergeInto(to: VisitorState, from: VisitorState, sessions: Map<string, SessionWrite>): number {
  const offset = to.sessions;
  const fromPrefix = `${from.accountId}\n${from.visitorId}\n`;
  for (const [key, row] of [...sessions]) {
    if (!key.startsWith(fromPrefix)) continue;
    sessions.delete(key);
    const number = row.number + offset;
    sessions.set(`${to.accountId}\n${to.visitorId}\n${number}`, { ...row, visitorId: to.visitorId, number });
  }
  if (from.pageViews > 0 && (to.pageViews === 0 || ms(from.firstSeen) < ms(to.firstSeen))) {
    to.firstReferrer = from.firstReferrer;
    to.firstUtm = from.firstUtm;
  }
  to.pageViews += from.pageViews;
  to.engagedSeconds += from.engagedSeconds;
  to.sessions += from.sessions;
  if (from.sessions > 0) {
    to.sessionStartedAt = from.sessionStartedAt;
    to.sessionLastAt = from.sessionLastAt;
    to.sessionCampaign = from.sessionCampaign;
  }
  if (ms(from.firstSeen) < ms(to.firstSeen)) to.firstSeen = from.firstSeen;
  if (ms(from.lastSeen) > ms(to.lastSeen)) to.lastSeen = from.lastSeen;
  to.lastPages = [...to.lastPages, ...from.lastPages].sort((a, b) => ms(b.at) - ms(a.at)).slice(0, LAST_PAGES);
  if (!to.company && from.company) Object.assign(to, { company: from.company, companyAt: from.companyAt });
  to.network ??= from.network;
  to.location ??= from.location;
  return offset;
}
