// The eventId of a track message forwarded to events.inbound: the same for every redelivery of the
// message (the playbook service dedups by it), so sha256(site:visitor:message id) shaped as an
// RFC 9562 version 8 (custom) UUID.
import { createHash } from 'node:crypto';

export function trackEventId(siteId: string, visitorId: string, messageId: string): string {
  const b = createHash('sha256').update(`${siteId}:${visitorId}:${messageId}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
