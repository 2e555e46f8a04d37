// The track and engagement steps of a chunk's plan: what the visitor did beyond its page views.
import { ENGAGED_SECONDS_MAX, type CollectedMessage } from '@glimpse/messaging';
import type { VisitorState } from './collected-records.js';
import { forward, hasWorkflows } from './collected-sends.js';
import { touchSession, weightsOf, type PlanState } from './collected-state.js';
import { addContribution, eventReason, weightOf } from './intent-score.js';

export function trackStep(s: PlanState, m: Extract<CollectedMessage, { type: 'track' }>, v: VisitorState, at: string): void {
  // An event scores when the account weighs it, with or without the add-on (scoring is not a workflow).
  if (weightOf(`event:${m.event}`, weightsOf(s, m.accountId)) > 0) addContribution(v.intentContributions, `event:${m.event}`, 1, at, eventReason(m.event));
  if (!hasWorkflows(m)) s.plan.counts.withoutAddon += 1;
  else if (v.email) s.plan.forwards.push(forward(m, v.email, at, false));
  else s.plan.counts.tracksUnidentified += 1;
  touchSession(s, v, at, null, 0);
}

export function engagementStep(s: PlanState, m: Extract<CollectedMessage, { type: 'engagement' }>, v: VisitorState, at: string): void {
  v.engagedSeconds += Math.min(m.seconds, ENGAGED_SECONDS_MAX);
  if (m.seconds > 0) addContribution(v.intentContributions, 'engaged', Math.min(m.seconds, ENGAGED_SECONDS_MAX) / 60, at);
  touchSession(s, v, at, null, 0);
}
