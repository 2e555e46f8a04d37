// Deterministic event ids: the same for every redelivery of what caused them (consumers dedup by
// them), so sha256 of the cause shaped as an RFC 9562 version 8 (custom) UUID.
import { createHash } from 'node:crypto';

function hashUuid(text: string): string {
  const b = createHash('sha256').update(text).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A track message forwarded to events.inbound. */
export function trackEventId(siteId: string, visitorId: string, messageId: string): string {
  return hashUuid(`${siteId}:${visitorId}:${messageId}`);
}

/** A page rule's event: once per rule, visitor and session. */
export function pageRuleEventId(ruleId: string, visitorId: string, session: number): string {
  return hashUuid(`rule:${ruleId}:${visitorId}:${session}`);
}

/** A visitors.identified message: one per identity link (its source message). */
export function identifiedEventId(accountId: string, visitorId: string, sourceId: string): string {
  return hashUuid(`identified:${accountId}:${visitorId}:${sourceId}`);
}

/** A visitors.companies message: one per company, site and window. */
export function companyVisitedEventId(accountId: string, siteId: string, company: string, windowStart: string): string {
  return hashUuid(`company:${accountId}:${siteId}:${company}:${windowStart}`);
}

/** A segment.entered message: one per segment, member and alert window. */
export function segmentEnteredEventId(segmentId: string, member: string, windowStart: string): string {
  return hashUuid(`segment:${segmentId}:${member}:${windowStart}`);
}

/** A segment.digest message: one per segment and account-local day (YYYY-MM-DD). */
export function segmentDigestEventId(segmentId: string, day: string): string {
  return hashUuid(`digest:${segmentId}:${day}`);
}
