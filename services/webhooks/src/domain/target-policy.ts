// Which webhook targets may be called: an https URL (http too outside production) without
// credentials, and (with the SSRF guard on) only addresses that are public unicast. A hostname is
// judged by every address it resolves to, at subscription and again at each connection (a name
// can be re-pointed). A refusal of a name never says what it resolved to, nor whether it resolved
// at all: the 400 (and the attempt log) would otherwise map internal names for whoever asks.
import ipaddr from 'ipaddr.js';
import { AppError } from '@glimpse/errors';

export interface TargetPolicy {
  /** Refuse every address that is not public unicast. */
  blockPrivate: boolean;
  /** With blockPrivate, still allow loopback (127.0.0.0/8, ::1). */
  allowLoopback: boolean;
  /**
   * Refuse http:// (production): the payload names a person and is signed, not encrypted. With
   * allowLoopback, http to a loopback host stays allowed (a local receiver; nothing leaves the host).
   */
  requireHttps: boolean;
}

/** The refusal of a name, whether it resolves to a non-public address, to nothing, or not at all. */
export const NAME_REFUSED = 'url is not allowed: its host must resolve to public addresses only';
export const HTTPS_REQUIRED = 'url must use https';

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

const isLoopbackHost = (url: URL): boolean => {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host)) && ipaddr.process(host).range() === 'loopback';
};

/** Why a URL's scheme may not be called under the policy, or null when it may. */
export function refusedScheme(url: URL, policy: Pick<TargetPolicy, 'requireHttps' | 'allowLoopback'>): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return 'url must use https';
  return policy.requireHttps && !(policy.allowLoopback && isLoopbackHost(url)) ? HTTPS_REQUIRED : null;
}

/** The URL as it will be stored, or a 400 saying what is wrong with it (no DNS here: see checkTarget). */
export function parseTargetUrl(
  value: string,
  policy: Pick<TargetPolicy, 'requireHttps' | 'allowLoopback'> = { requireHttps: false, allowLoopback: false },
): URL {
  if (value.length > MAX_URL_LENGTH) throw new AppError('invalid_request', `url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('invalid_request', 'url must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new AppError('invalid_request', policy.requireHttps ? HTTPS_REQUIRED : 'url must use http or https');
  const scheme = refusedScheme(url, policy);
  if (scheme) throw new AppError('invalid_request', scheme);
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

/**
 * Refuses (400) a URL whose host is, or resolves to, an address the policy does not allow. An
 * IP literal is named (the caller wrote it); a name is refused in the same words whatever it
 * resolved to, and whether it resolved at all (NAME_REFUSED). A resolver that does not answer in
 * time is a 400 saying so (try again), never the addresses it found.
 */
export async function checkTarget(url: URL, policy: TargetPolicy, resolve: Resolve): Promise<void> {
  if (!policy.blockPrivate) return;
  const literal = literalAddress(url);
  if (literal) {
    const why = refusedAddress(literal, policy);
    if (why) throw new AppError('invalid_request', `url is not allowed: its host must be a public address (${why})`);
    return;
  }
  let addresses: string[];
  try {
    addresses = await resolve(url.hostname);
  } catch (err) {
    if ((err as { code?: string }).code === 'ETIMEOUT') throw new AppError('invalid_request', "url's host did not resolve in time; try again");
    throw new AppError('invalid_request', NAME_REFUSED);
  }
  if (addresses.length === 0 || addresses.some((a) => refusedAddress(a, policy))) throw new AppError('invalid_request', NAME_REFUSED);
}
