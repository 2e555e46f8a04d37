// One line of an ip-ranges file: `{"cidr": "203.0.113.0/24", "company": {"name": …, "domain": …}}`,
// IPv4 or IPv6, checked before it reaches COPY (so one bad line is reported, not the whole load lost).
import { isIP } from 'node:net';

export interface IpRange {
  cidr: string;
  name: string;
  domain: string | null;
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** A checked CIDR (`address/prefix`, prefix within the family's bits; a bare address is its /32 or /128), or null. */
export function checkCidr(value: string): string | null {
  const [address, prefix, ...rest] = value.trim().split('/');
  if (!address || rest.length > 0 || address.includes('%')) return null;
  const family = isIP(address);
  if (family === 0) return null;
  const bits = family === 4 ? 32 : 128;
  if (prefix === undefined) return `${address}/${bits}`;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return null;
  return `${address}/${Number(prefix)}`;
}

export function parseIpRangeLine(line: string): IpRange | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'not a JSON object' };
  const { cidr, company } = value as { cidr?: unknown; company?: unknown };
  if (typeof cidr !== 'string') return { error: 'cidr: missing (a string such as "203.0.113.0/24")' };
  const checked = checkCidr(cidr);
  if (checked === null) return { error: 'cidr: not an IPv4 or IPv6 CIDR' };
  if (typeof company !== 'object' || company === null) return { error: 'company: missing (an object with name and domain)' };
  const { name, domain } = company as { name?: unknown; domain?: unknown };
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 200) return { error: 'company.name: a string of 1-200 characters' };
  if (domain !== undefined && domain !== null && (typeof domain !== 'string' || !DOMAIN.test(domain))) return { error: 'company.domain: not a domain name' };
  return { cidr: checked, name: name.trim(), domain: typeof domain === 'string' ? domain.toLowerCase() : null };
}
