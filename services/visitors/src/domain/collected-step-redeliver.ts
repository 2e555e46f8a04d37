// The step of a message already collected (a chunk read again after a crash): what it sent may not
// have gone out, so it is sent again under the same ids; nothing else changes.
import { identifyVerified, type CollectedMessage } from '@glimpse/messaging';
import { cleanPath, linkKey, ms } from './collected-keys.js';
import { forward, hasWorkflows, identified, ruleForward } from './collected-sends.js';
import { firedAtKey, known, visitedBy, type PlanState } from './collected-state.js';

export function redeliverStep(s: PlanState, m: CollectedMessage, at: string): void {
  const v = known(s, m.accountId, m.visitorId);
  if (m.type === 'pageview' && v) visitedBy(s, m, v, at, true);
  if (m.type === 'track') {
    // Sent again, same eventId, if the visitor was identified by its time (one dropped then, unidentified, stays dropped).
    if (hasWorkflows(m) && v?.email && v.identifiedAt !== null && ms(v.identifiedAt) <= ms(at)) s.plan.forwards.push(forward(m, v.email, at, true));
  } else if (m.type === 'pageview' && v?.email) {
    for (const rule of s.rules.get(m.accountId) ?? []) {
      const f = s.firedAt.get(firedAtKey(m.accountId, m.visitorId, rule.id, at));
      if (f && rule.event !== null) {
        const firing = { accountId: m.accountId, visitorId: m.visitorId, session: f.sessionNumber, email: v.email, path: cleanPath(m.path), at };
        s.plan.forwards.push(ruleForward({ ...rule, event: rule.event }, firing, true));
      }
    }
  } else if (
    m.type === 'identify' &&
    s.input.links?.has(linkKey(m.accountId, m.visitorId, m.id)) &&
    !(v?.identifiedVerified === true && !identifyVerified(m))
  ) {
    // (A claim kept as history beside a verified link was never announced: nor is it again.)
    s.plan.identified.push(identified(m, at, true));
  }
}
