// What a collected message sends on: a track as an event, a fired page rule as an event, an
// identify as a visitor.identified message. Each id is derived from the message (or the rule and the
// session), so a redelivery sends again under the same id.
import { identificationConfidence, identifyVerified, type CollectedMessage } from '@glimpse/messaging';
import type { IdentifiedMessage, PageRule, TrackForward } from './collected-records.js';
import { identifiedEventId, pageRuleEventId, trackEventId } from './track-event-id.js';

/**
 * Whether the message's account had the workflows add-on when the gateway collected it: page rules
 * and tracks become events (for playbooks) only then. Decided at collection, so a message accepted
 * before a removal still counts, and a redelivery decides as the first delivery did.
 */
export const hasWorkflows = (m: CollectedMessage): boolean => m.workflows !== false;

export function forward(m: Extract<CollectedMessage, { type: 'track' }>, email: string, at: string, redelivered: boolean): TrackForward {
  return {
    eventId: trackEventId(m.siteId, m.visitorId, m.id),
    accountId: m.accountId,
    event: m.event,
    email,
    properties: m.properties,
    receivedAt: at,
    redelivered,
  };
}

/** Where and when a page rule fired: the visitor, its session and person, the page's path. */
export interface RuleFiring {
  accountId: string;
  visitorId: string;
  session: number;
  email: string;
  path: string;
  at: string;
}

export function ruleForward(rule: PageRule & { event: string }, firing: RuleFiring, redelivered: boolean): TrackForward {
  return {
    eventId: pageRuleEventId(rule.id, firing.visitorId, firing.session),
    accountId: firing.accountId,
    event: rule.event,
    email: firing.email,
    properties: { path: firing.path, rule: rule.id },
    receivedAt: firing.at,
    redelivered,
  };
}

export function identified(m: Extract<CollectedMessage, { type: 'identify' }>, at: string, redelivered: boolean): IdentifiedMessage {
  const method = m.method ?? 'identify';
  const verified = identifyVerified(m);
  return {
    eventId: identifiedEventId(m.accountId, m.visitorId, m.id),
    accountId: m.accountId,
    siteId: m.siteId,
    visitorId: m.visitorId,
    method,
    confidence: identificationConfidence(method, verified),
    verified,
    email: m.email,
    at,
    redelivered,
  };
}
