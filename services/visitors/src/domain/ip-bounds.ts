// The first and last address of a range as the IP data files give it: a CIDR, or a start and an end
// (inclusive, any alignment), as the text Postgres' inet reads. Checked here rather than by Postgres
// so that a bad address is a reported line, not a failed COPY. Addresses are read by ip-address.ts
// (an IPv4-mapped IPv6 address is its IPv4 address). A CSV's start and end are compared without
// BigInt for IPv4 and kept as written: a million-line file is read at the rate COPY takes it.
import { parseAddress, v6Value, type ParsedAddress } from './ip-address.js';

export interface Bounds {
  family: 4 | 6;
  first: string;
  last: string;
}

/** An address as one value (IPv4 in the low 32 bits). */
export const addressValue = (a: ParsedAddress): bigint => (a.family === 4 ? BigInt(a.value) : v6Value(a.hi, a.lo));

/** The text Postgres' inet reads: dotted IPv4, or eight hex groups. */
export function formatAddress(family: 4 | 6, value: bigint | number): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const v = BigInt(value);
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((v >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/** A CIDR's first and last address (`address/prefix`; a bare address is a one-address range). */
export function cidrBounds(text: string): Bounds | { error: string } {
  const [addressText, prefixText, ...rest] = text.trim().split('/');
  const address = addressText === undefined || rest.length > 0 ? null : parseAddress(addressText);
  if (address === null || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) return { error: 'not an IPv4 or IPv6 CIDR' };
  // A mapped IPv4 network (::ffff:192.0.2.0/120) is that IPv4 network (/24).
  const mapped = address.family === 4 && addressText!.includes(':');
  const bits = (address.family === 4 ? 32 : 128) + (mapped ? 96 : 0);
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return { error: `prefix longer than ${bits} bits` };
  if (mapped && prefix < 96) return { error: 'an IPv4-mapped network takes a prefix of 96 or more' };
  const host = (1n << BigInt(bits - prefix)) - 1n;
  const first = addressValue(address) & ~host;
  return { family: address.family, first: formatAddress(address.family, first), last: formatAddress(address.family, first | host) };
}

/** start ≤ end, both of one family. */
function inOrder(a: ParsedAddress, b: ParsedAddress): boolean {
  if (a.family === 4 && b.family === 4) return a.value <= b.value;
  if (a.family === 6 && b.family === 6) return a.hi < b.hi || (a.hi === b.hi && a.lo <= b.lo);
  return false;
}

/** The address as written, unless it was a mapped IPv4 one (then its IPv4 text). */
const textOf = (text: string, a: ParsedAddress) => (a.family === 4 && text.includes(':') ? formatAddress(4, a.value) : text);

/** An inclusive start..end range: both addresses, one family, start ≤ end. */
export function rangeBounds(startText: string, endText: string): Bounds | { error: string } {
  const start = startText.trim();
  const end = endText.trim();
  const first = parseAddress(start);
  if (first === null) return { error: 'start: not an IPv4 or IPv6 address' };
  const last = parseAddress(end);
  if (last === null) return { error: 'end: not an IPv4 or IPv6 address' };
  if (first.family !== last.family) return { error: 'start and end are of different families (IPv4 and IPv6)' };
  if (!inOrder(first, last)) return { error: 'start is after end' };
  return { family: first.family, first: textOf(start, first), last: textOf(end, last) };
}
