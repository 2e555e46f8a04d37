// What a visitor identification becomes on the wire: who was identified (visitor, site, email), how
// and how surely, and the person's §2.1 fields as enrichment knew them when it was scheduled.
import type { VisitorIdentifiedMessage } from '@glimpse/messaging';

/** The seven §2.1 fields: strings, each left out when the person lacks it. */
export const PERSON_FIELDS = ['firstName', 'lastName', 'name', 'email', 'company', 'company_role', 'pronet_url'] as const;
export type PersonDetails = Partial<Record<(typeof PERSON_FIELDS)[number], string>>;

export interface VisitorIdentifiedPayload {
  type: 'visitor.identified';
  timestamp: string;
  data: {
    visitor_id: string;
    site_id: string;
    method: VisitorIdentifiedMessage['method'];
    confidence: number;
    /** A verified identification (the site's hash, an email link); false: a claim anyone with the site key could make. */
    verified: boolean;
    email: string;
    /** Empty when enrichment knows nobody with the email. */
    details: PersonDetails;
  };
}

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
