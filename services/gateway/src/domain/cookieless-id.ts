// The visitor id of a browser that has not consented (or has refused): a hash of the site, the
// client address and the user agent under a salt that changes every UTC day, so the same browser
// is one visitor for a day and cannot be followed across days or sites; nothing is stored on it.
import { createHmac } from 'node:crypto';
import { isIPv6 } from 'node:net';

/** The UTC day a salt belongs to: YYYY-MM-DD. */
export const saltDay = (now: Date): string => now.toISOString().slice(0, 10);

/** First 24 hex of HMAC-SHA256(salt, siteId|ip|userAgent): shaped like any visitor id. */
export function cookielessId(salt: Buffer, siteId: string, ip: string | undefined, userAgent: string | undefined): string {
  return createHmac('sha256', salt)
    .update(`${siteId}|${ip ?? ''}|${userAgent ?? ''}`)
    .digest('hex')
    .slice(0, 24);
}

/** Expands an IPv6 address to its eight hextets (handles :: and an embedded IPv4 tail). */
function hextets(ip: string): string[] {
  let address = ip.split('%')[0]!;
  // The embedded IPv4 is what follows the last ':', matched whole (anchored: tried once, linear).
  const tailStart = address.lastIndexOf(':') + 1;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address.slice(tailStart));
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    address = `${address.slice(0, tailStart)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((h) => h.toLowerCase().replace(/^0+(?=.)/, ''));
}

/**
 * Who a per-address limit counts: an IPv4 address as it is (an IPv4-mapped IPv6 one too), an IPv6
 * address by its /64, since one host commonly holds a whole /64.
 */
export function addressSubject(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return `${hextets(ip).slice(0, 4).join(':')}::/64`;
}
