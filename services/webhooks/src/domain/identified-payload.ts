// What a visitor identification becomes on the wire: who was identified (visitor, site, email), how
// and how surely, and the person's fields as enrichment knew them when it was scheduled.
import { PERSON_FIELDS, type PersonDetails, type VisitorIdentifiedPayload } from '@glimpse/api';
import type { VisitorIdentifiedMessage } from '@glimpse/messaging';

// The shapes are @glimpse/api's (the person fields are the visitor details' seven).
export type { PersonDetails, VisitorIdentifiedPayload } from '@glimpse/api';

/** The seven fields of enrichment's answer, and nothing else it may say. */
export function personDetailsOf(details: unknown): PersonDetails {
  if (typeof details !== 'object' || details === null) return {};
  const source = details as Record<string, unknown>;
  return Object.fromEntries(PERSON_FIELDS.flatMap((f) => (typeof source[f] === 'string' ? [[f, source[f]]] : [])));
}

export function identifiedPayloadOf(message: VisitorIdentifiedMessage, details: PersonDetails): VisitorIdentifiedPayload {
  return {
    type: 'visitor.identified',
    timestamp: message.at,
    data: {
      visitor_id: message.visitorId,
      site_id: message.siteId,
      method: message.method,
      confidence: message.confidence,
      // A message from before verification existed: an email link was checked then too.
      verified: message.verified ?? message.method === 'email_link',
      email: message.email,
      details,
    },
  };
}
