// What a MaxMind DB record says about its network, for the vendors whose files we read: MaxMind's
// GeoLite2/GeoIP2 ASN, ISP, Connection-Type and Enterprise (fields at the top, or under `traits`),
// DB-IP (MaxMind's field names) and IPinfo (`asn` "AS…", name/as_name, domain/as_domain, type, or
// the objects `asn` and `company`). The organisation that holds the network is preferred to its
// ISP, and both to the autonomous system's name.
import { checkFields, type Invalid, type RowFields } from './ip-range-row.js';
import { ipinfoType, maxmindConnectionType, maxmindUserType } from './vendor-network-types.js';

type Fields = Record<string, unknown>;

const objectOf = (value: unknown): Fields | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined);

function typeOf(t: Fields, company: Fields | undefined, asn: Fields | undefined) {
  const mobileCodes = t.mobile_country_code !== undefined && t.mobile_network_code !== undefined;
  return (
    maxmindUserType(t.user_type) ??
    maxmindConnectionType(t.connection_type) ??
    (mobileCodes ? 'mobile' : null) ??
    ipinfoType(company?.type) ??
    ipinfoType(t.type) ??
    ipinfoType(asn?.type)
  );
}

/**
 * The row fields of one record, checked; null when it gives nothing to place a visitor with (no
 * asn, name or type: a City or Anonymous-IP record, say).
 */
export function mmdbRecordFields(record: unknown): RowFields | Invalid | null {
  const top = objectOf(record);
  if (!top) return null;
  const t: Fields = { ...top, ...objectOf(top.traits) };
  const asnObject = objectOf(t.asn);
  const company = objectOf(t.company);
  const raw = {
    asn: t.autonomous_system_number ?? (asnObject ? asnObject.asn : t.asn),
    name: t.organization ?? t.isp ?? t.autonomous_system_organization ?? company?.name ?? t.name ?? t.as_name ?? asnObject?.name,
    domain: t.domain ?? company?.domain ?? t.as_domain ?? asnObject?.domain,
    type: typeOf(t, company, asnObject),
  };
  if ([raw.asn, raw.name, raw.type].every((v) => v === undefined || v === null || v === '')) return null;
  return checkFields(raw);
}
