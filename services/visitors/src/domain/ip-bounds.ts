// The first and last address of a range as the IP data files give it: a CIDR, or a start and an end
// (inclusive, any alignment), as 128- or 32-bit values. Checked here rather than by Postgres so that
// a bad address is a reported line, not a failed COPY. Addresses are read by ip-address.ts (an
// IPv4-mapped IPv6 address is its IPv4 address).
import { parseAddress as parseAddressParts, v6Value } from './ip-address.js';

export interface Address {
  family: 4 | 6;
  value: bigint;
}

export interface Bounds {
  family: 4 | 6;
  first: bigint;
  last: bigint;
}

const BITS = { 4: 32, 6: 128 } as const;

/** An IPv4 or IPv6 address (no zone, no prefix) as one value, or null. */
export function parseAddress(text: string): Address | null {
  const parsed = parseAddressParts(text);
  if (parsed === null) return null;
  return parsed.family === 4 ? { family: 4, value: BigInt(parsed.value) } : { family: 6, value: v6Value(parsed.hi, parsed.lo) };
}

/** The text Postgres' inet reads: dotted IPv4, or eight hex groups. */
export function formatAddress(family: 4 | 6, value: bigint): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/** A CIDR's first and last address (`address/prefix`; a bare address is a one-address range). */
export function cidrBounds(text: string): Bounds | { error: string } {
  const [addressText, prefixText, ...rest] = text.trim().split('/');
  const address = addressText === undefined || rest.length > 0 ? null : parseAddress(addressText);
  if (address === null || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) return { error: 'not an IPv4 or IPv6 CIDR' };
  // A mapped IPv4 network (::ffff:192.0.2.0/120) is that IPv4 network (/24).
  const mapped = address.family === 4 && addressText!.includes(':');
  const bits = BITS[address.family] + (mapped ? 96 : 0);
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return { error: `prefix longer than ${bits} bits` };
  if (mapped && prefix < 96) return { error: 'an IPv4-mapped network takes a prefix of 96 or more' };
  const host = (1n << BigInt(bits - prefix)) - 1n;
  const first = address.value & ~host;
  return { family: address.family, first, last: first | host };
}

/** An inclusive start..end range: both addresses, one family, start ≤ end. */
export function rangeBounds(startText: string, endText: string): Bounds | { error: string } {
  const first = parseAddress(startText.trim());
  if (first === null) return { error: 'start: not an IPv4 or IPv6 address' };
  const last = parseAddress(endText.trim());
  if (last === null) return { error: 'end: not an IPv4 or IPv6 address' };
  if (first.family !== last.family) return { error: 'start and end are of different families (IPv4 and IPv6)' };
  if (first.value > last.value) return { error: 'start is after end' };
  return { family: first.family, first: first.value, last: last.value };
}
