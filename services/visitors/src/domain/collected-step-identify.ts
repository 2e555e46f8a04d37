// The identify step of a chunk's plan: links the visitor to a person (the newest link wins) and
// announces it, unless the visitor may not be identified or nothing is new.
import { identificationConfidence, identifyVerified, type CollectedMessage } from '@glimpse/messaging';
import type { VisitorState } from './collected-records.js';
import { cleanPath, erasureKey, ms } from './collected-keys.js';
import { identified } from './collected-sends.js';
import { touchSession, visitedBy, type PlanState } from './collected-state.js';

type Identify = Extract<CollectedMessage, { type: 'identify' }>;

export function identifyStep(s: PlanState, m: Identify, v: VisitorState, at: string): void {
  if (!identifiable(s, m, v, at)) s.plan.counts.identifiesDropped += 1;
  else link(s, m, v, at);
  touchSession(s, v, at, null, 0);
}

/** A cookieless or refusing visitor is never identified; a person erased after this identify was sent stays erased. */
function identifiable(s: PlanState, m: Identify, v: VisitorState, at: string): boolean {
  const erasedAt = s.input.erasures?.get(erasureKey(m.accountId, m.email));
  return !(v.cookieless || v.consent === 'denied' || (erasedAt !== undefined && ms(at) <= ms(erasedAt)));
}

function link(s: PlanState, m: Identify, v: VisitorState, at: string): void {
  const method = m.method ?? 'identify';
  const verified = identifyVerified(m);
  const confidence = identificationConfidence(method, verified);
  // The same person by the same method again (an identify on every page), or a claim of the
  // person already verified: nothing new to link or announce. A verified identify of a person
  // only claimed so far is new: it upgrades the link.
  const alreadyVerified = v.identifiedVerified === true;
  if (v.email === m.email && (v.identifiedMethod === method || alreadyVerified) && (!verified || alreadyVerified)) return;
  s.plan.links.push({
    accountId: m.accountId,
    visitorId: m.visitorId,
    siteId: m.siteId,
    email: m.email,
    method,
    confidence,
    verified,
    at,
    sourceId: m.id,
    sourcePath: m.path ? cleanPath(m.path) : null,
  });
  // A claim never replaces a current verified link: it is kept as history only, and announced to nobody.
  if (!verified && alreadyVerified) return;
  s.plan.identified.push(identified(m, at, false));
  // The newest link wins (by its time, so a late identify does not undo a newer one); older ones stay as history.
  if (v.identifiedAt === null || ms(at) >= ms(v.identifiedAt))
    Object.assign(v, { email: m.email, identifiedMethod: method, identifiedAt: at, identifiedConfidence: confidence, identifiedVerified: verified });
  // The person's company may be one the visit has not counted for yet.
  if (v.pageViews > 0) visitedBy(s, m, v, at, false);
}
