// What a company's first visit to a site in a window becomes on the wire: which company (its key,
// name and domain, and its firmographics as enrichment knew them when it was scheduled), which site
// and visitor, the visitor's network and location, and the window. The shape is @glimpse/api's
// CompanyVisitedPayload.
import type { CompanyRecord, CompanyVisitedPayload } from '@glimpse/api';
import type { CompanyVisitedMessage } from '@glimpse/messaging';
import { isNetworkType } from '@glimpse/validation';

type Firmographics = Omit<CompanyRecord, 'domain' | 'name'>;

const NO_RECORD: Firmographics = {
  industry: null,
  size: null,
  employees: null,
  founded: null,
  location: { country: null, region: null, city: null },
  pronet_url: null,
};

function firmographicsOf(record: CompanyRecord | null): Firmographics {
  if (record === null) return NO_RECORD;
  const { industry, size, employees, founded, location, pronet_url } = record;
  return { industry, size, employees, founded, location, pronet_url };
}

/** The visitor's network as the API names it: a type the API does not list is `unknown`. */
function networkOf(network: CompanyVisitedMessage['network']): CompanyVisitedPayload['data']['network'] {
  if (network === null) return null;
  return { name: network.name, type: isNetworkType(network.type) ? network.type : 'unknown', asn: network.asn };
}

/** `record`: the company record of the visit's domain, or null when enrichment has none (or no domain is known). */
export function companyVisitedPayloadOf(message: CompanyVisitedMessage, record: CompanyRecord | null): CompanyVisitedPayload {
  return {
    type: 'company.visited',
    timestamp: message.at,
    data: {
      site_id: message.siteId,
      visitor_id: message.visitorId,
      // The record's name is the curated one; the network data's is an owner's label, kept when there is no other.
      company: { key: message.company, name: record?.name ?? message.name, domain: message.domain, ...firmographicsOf(record) },
      network: networkOf(message.network),
      location: message.location,
      window_start: message.windowStart,
    },
  };
}
