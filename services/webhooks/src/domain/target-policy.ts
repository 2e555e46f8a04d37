// Which webhook targets may be called: an http(s) URL without credentials, and (with the SSRF
// guard on) only addresses that are public unicast. A hostname is judged by every address it
// resolves to, at subscription and again at each connection (a name can be re-pointed).
import ipaddr from 'ipaddr.js';
import { AppError } from '@glimpse/errors';

export interface TargetPolicy {
  /** Refuse every address that is not public unicast. */
  blockPrivate: boolean;
  /** With blockPrivate, still allow loopback (127.0.0.0/8, ::1). */
  allowLoopback: boolean;
}

export const MAX_URL_LENGTH = 2048;

/** Why an address may not be called, or null when it may. */
export function refusedAddress(address: string, policy: TargetPolicy): string | null {
  if (!policy.blockPrivate) return null;
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback) return null;
  return `${address} is a ${range} address`;
}

/** The URL as it will be stored, or a 400 saying what is wrong with it (no DNS here: see checkTarget). */
export function parseTargetUrl(value: string): URL {
  if (value.length > MAX_URL_LENGTH) throw new AppError('invalid_request', `url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('invalid_request', 'url must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('invalid_request', 'url must use http or https');
  if (url.username || url.password) throw new AppError('invalid_request', 'url must not contain credentials');
  if (url.hash) throw new AppError('invalid_request', 'url must not contain a fragment');
  return url;
}

/** The URL's host as an IP address when it is one (brackets of IPv6 literals removed). */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) && (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host)) ? host : null;
}

export type Resolve = (hostname: string) => Promise<string[]>;

/** Refuses (400) a URL whose host is, or resolves to, an address the policy does not allow. */
export async function checkTarget(url: URL, policy: TargetPolicy, resolve: Resolve): Promise<void> {
  if (!policy.blockPrivate) return;
  const literal = literalAddress(url);
  let addresses: string[];
  if (literal) addresses = [literal];
  else {
    try {
      addresses = await resolve(url.hostname);
    } catch {
      throw new AppError('invalid_request', `url's host ${url.hostname} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new AppError('invalid_request', `url's host ${url.hostname} does not resolve`);
  for (const address of addresses) {
    const why = refusedAddress(address, policy);
    if (why) throw new AppError('invalid_request', `url is not allowed: ${url.hostname} resolves to a non-public address (${why})`);
  }
}
