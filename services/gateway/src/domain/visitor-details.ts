// The details of a visitor the site tag has seen (api.md §2.1 plus the page-view fields): the
// identified person's seven fields as enrichment derives them (absent ones omitted; the linked
// email when the person has none or is unknown), then the visitors service's page-view fields; an
// unidentified visitor matched to a company by its address has that company's name (ip_company);
// then its network, its location and its company's firmographics (company_profile) when known.

import { PERSON_FIELDS, type InternalVisitorPageViews } from '@glimpse/api';

/** The page-view fields as the visitors service answers them. */
export interface TagVisitorFields extends InternalVisitorPageViews {
  identified_by?: { method: string; at: string; confidence?: number; verified?: boolean };
  /** The company behind the visitor's address (method ip_company): its name, or {name, domain}. */
  company?: string | { name?: string };
  /** The network of its last located page view ({name, type, asn}) and where that was ({country, region, city, time_zone}). */
  network?: Record<string, unknown>;
  location?: Record<string, unknown>;
  /** The company it counts for (a work email's domain, else the network's company), whose firmographics the lookup adds. */
  company_key?: string;
  /** Its intent score now and the reason for every point. */
  intent?: { score: number; reasons: { reason: string; points: number; at: string }[] };
}

export function tagVisitorDetails(
  visitor: TagVisitorFields,
  linkedEmail?: string,
  person?: Record<string, unknown> | null,
  firmographics?: Record<string, unknown> | null,
): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  if (linkedEmail !== undefined) {
    for (const field of PERSON_FIELDS) {
      const value = field === 'email' ? (person?.email ?? linkedEmail) : person?.[field];
      if (typeof value === 'string' && value !== '') details[field] = value;
    }
  }
  details.page_views = visitor.page_views;
  details.sessions = visitor.sessions;
  details.first_seen = visitor.first_seen;
  details.last_seen = visitor.last_seen;
  if (visitor.last_page !== undefined) details.last_page = visitor.last_page;
  details.engaged_seconds = visitor.engaged_seconds;
  // A company from the address is shown only while no person is known (the person's own company wins).
  const company = typeof visitor.company === 'string' ? visitor.company : visitor.company?.name;
  if (details.company === undefined && linkedEmail === undefined && typeof company === 'string' && company !== '') details.company = company;
  // Beyond the seven fields: where the visitor is, on which network, and the firmographics of its company.
  if (visitor.network !== undefined) details.network = visitor.network;
  if (visitor.location !== undefined) details.location = visitor.location;
  if (firmographics) details.company_profile = firmographics;
  if (visitor.intent !== undefined) details.intent = visitor.intent;
  if (visitor.identified_by !== undefined) {
    const { method, at, confidence, verified } = visitor.identified_by;
    details.identified_by = { method, at, ...(typeof confidence === 'number' ? { confidence } : {}), ...(typeof verified === 'boolean' ? { verified } : {}) };
  }
  return details;
}
