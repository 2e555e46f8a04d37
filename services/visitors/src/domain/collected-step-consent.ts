// The consent step of a chunk's plan: a grant credits the views the browser sent while consent was
// pending; a refusal takes back every identification of the visitor id.
import type { CollectedMessage } from '@glimpse/messaging';
import type { VisitorState } from './collected-records.js';
import { cleanPath, iso, ms } from './collected-keys.js';
import { scoreView, touchSession, type PlanState } from './collected-state.js';
import { LAST_PAGES, SESSION_IDLE_MS } from './collected-step-page-view.js';

type Consent = Extract<CollectedMessage, { type: 'consent' }>;

export function consentStep(s: PlanState, m: Consent, v: VisitorState, at: string): void {
  if (m.state === 'granted') {
    Object.assign(v, { consent: 'granted', consentAt: at, cookieless: false });
    // Only the views this browser sent while consent was pending are credited: the day's
    // cookieless profile (everyone behind the same address and browser) is left as it is.
    creditViews(s, v, m.views ?? [], m.siteId, at);
  } else {
    Object.assign(v, {
      consent: 'denied',
      consentAt: at,
      email: null,
      identifiedMethod: null,
      identifiedAt: null,
      identifiedConfidence: null,
      identifiedVerified: null,
    });
    s.plan.unlinks.push({ accountId: m.accountId, visitorId: m.visitorId });
    s.plan.links = s.plan.links.filter((l) => l.accountId !== m.accountId || l.visitorId !== m.visitorId);
  }
  touchSession(s, v, at, null, 0);
}

/** A grant's earlier page views, oldest first: counted, listed and sessioned as the visitor's (the site's hours counted them already). */
function creditViews(s: PlanState, v: VisitorState, views: readonly { path: string; at: string }[], siteId: string, grantAt: string): void {
  for (const view of [...views].sort((a, b) => ms(a.at) - ms(b.at))) {
    const at = iso(ms(view.at) <= ms(grantAt) ? view.at : grantAt);
    const path = cleanPath(view.path);
    v.pageViews += 1;
    if (ms(at) < ms(v.firstSeen)) v.firstSeen = at;
    v.lastPages = [...v.lastPages, { path, at }].sort((a, b) => ms(b.at) - ms(a.at)).slice(0, LAST_PAGES);
    const idle = v.sessionLastAt === null || ms(at) - ms(v.sessionLastAt) > SESSION_IDLE_MS;
    touchSession(s, v, at, idle ? { siteId, landingPath: path, referrer: null, utmCampaign: null } : null, 1);
    scoreView(v, at, idle);
  }
}
