// What a chunk of collected messages does, computed in memory from the state its read loaded (the
// profiles of its visitors and which of its ids were already collected): the messages are walked in
// offset order, each visitor's state carried from one message to the next, so the outcome is
// exactly that of applying them one by one. Pure: times come from the messages (receivedAt).
//
// A small driver folds the messages through one named step per kind (page view, engagement,
// identify, consent, track; collected-step-*.ts), each a function of the shared state and one
// message that writes its part of the plan; a message already collected takes the redelivery step.
import type { Collected, CollectedMessage } from '@glimpse/messaging';
import type { CollectedPlan, PlanCollectedInput, VisitorState } from './collected-records.js';
import { collectedKey, collectedRef, iso, ms } from './collected-keys.js';
import { hourRow, planState, visitorOf, weightsOf, type PlanState } from './collected-state.js';
import { engagementStep, trackStep } from './collected-step-activity.js';
import { consentStep } from './collected-step-consent.js';
import { identifyStep } from './collected-step-identify.js';
import { pageViewStep } from './collected-step-page-view.js';
import { redeliverStep } from './collected-step-redeliver.js';
import { companyKeyOf } from './company-key.js';
import { intentStateOf } from './intent-score.js';

export type * from './collected-records.js';
export { BOT_VISITOR, collectedKey, collectedRef, erasureKey, firingKey, linkKey, profileKey, sessionKey, withoutQuery } from './collected-keys.js';
export { LAST_PAGES, SESSION_IDLE_MS } from './collected-step-page-view.js';

/** A step: what one message of its kind does to its visitor and the plan. */
type Step<M extends CollectedMessage> = (s: PlanState, m: M, v: VisitorState, at: string) => void;
const STEPS: { [K in CollectedMessage['type']]: Step<Extract<CollectedMessage, { type: K }>> } = {
  pageview: pageViewStep,
  engagement: engagementStep,
  identify: identifyStep,
  consent: consentStep,
  track: trackStep,
};

export function planCollected(input: PlanCollectedInput): CollectedPlan {
  const s = planState(input);
  for (const m of input.messages) planMessage(s, m);
  return finish(s);
}

function planMessage(s: PlanState, m: Collected): void {
  const ref = collectedRef(m);
  const key = collectedKey(ref.accountId, ref.visitorId, ref.id);
  const at = iso(m.receivedAt);
  if (s.seen.has(key) || s.input.collected.has(key)) {
    s.plan.counts.duplicates += 1;
    // Already collected, its sends may not have gone out (a crash before them): they go again under the same ids.
    if (!s.seen.has(key) && m.type !== 'bot') redeliverStep(s, m, at);
    s.seen.add(key);
    return;
  }
  s.seen.add(key);
  s.plan.collected.push({ ...ref, at });
  s.plan.counts.applied += 1;
  if (m.type === 'bot') {
    s.plan.counts.bots += 1;
    hourRow(s, m.siteId, m.accountId, at).bots += 1;
    return;
  }
  const v = visitorOf(s, m, at);
  if (v.intentAt === null || at > v.intentAt) v.intentAt = at;
  if (ms(at) < ms(v.firstSeen)) v.firstSeen = at;
  if (ms(at) > ms(v.lastSeen)) v.lastSeen = at;
  (STEPS[m.type] as Step<CollectedMessage>)(s, m, v, at);
}

/** The plan's rows from the fold's state: each touched profile with its company key and intent score. */
function finish(s: PlanState): CollectedPlan {
  const { plan } = s;
  plan.profiles = [...s.touched.values()].map(({ v, isNew }) => {
    const intent = intentStateOf(v.intentContributions, v.intentAt, weightsOf(s, v.accountId));
    return { ...v, companyKey: companyKeyOf(v), intentRaw: intent.raw, intentRank: intent.rank, isNew };
  });
  plan.sessions = [...s.sessions.values()];
  // Sorted, so concurrent transactions take the shared rows' locks in one order.
  plan.siteHours = [...s.hours.values()].sort((a, b) => (a.siteId === b.siteId ? a.hour.localeCompare(b.hour) : a.siteId < b.siteId ? -1 : 1));
  return plan;
}
