// One line of a hand-made company list (NDJSON): `{"cidr": "203.0.113.0/24", "company": {"name", "domain"},
// "type"?: "business", "asn"?: 64500}`, IPv4 or IPv6. A list of companies names companies, so a line
// without a type is a business network.
import { cidrBounds } from './ip-bounds.js';
import { checkFields, type IpRangeRow } from './ip-range-row.js';

export function parseIpRangeLine(line: string): IpRangeRow | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'not a JSON object' };
  const { cidr, company, type, asn } = value as { cidr?: unknown; company?: unknown; type?: unknown; asn?: unknown };
  if (typeof cidr !== 'string') return { error: 'cidr: missing (a string such as "203.0.113.0/24")' };
  const bounds = cidrBounds(cidr);
  if ('error' in bounds) return { error: `cidr: ${bounds.error}` };
  if (typeof company !== 'object' || company === null) return { error: 'company: missing (an object with name and domain)' };
  const { name, domain } = company as { name?: unknown; domain?: unknown };
  const fields = checkFields({ asn, name, domain, type: type ?? 'business' });
  if ('error' in fields) return { error: fields.error.startsWith('name') || fields.error.startsWith('domain') ? `company.${fields.error}` : fields.error };
  if (fields.name === null) return { error: 'company.name: missing (1-200 characters)' };
  return { ...bounds, ...fields };
}
