// A company's key: its domain, so the company behind an address, an imported company and the
// employer of an imported person meet on one spelling whoever wrote it.

/** The longest DNS name (RFC 1035, in its dotted text form). */
export const DOMAIN_MAX_LENGTH = 253;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// A top-level label is never all digits: that is an IPv4 address, not a company.
const TOP_LABEL = /[a-z-]/;

/** The host of a domain or a URL ("https://www.Acme.com/about", "acme.com."), or null. */
function hostOf(text: string): string | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  if (!URL.canParse(withScheme)) return null;
  const url = new URL(withScheme);
  // A user part ("mailto:a@acme.com" read as http) is an address, not a domain.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') return null;
  // The WHATWG parser lower-cases the host and writes an internationalised one in punycode.
  return url.hostname.replace(/\.$/, '');
}

/**
 * A company domain lower-cased, without `www.` and a trailing dot, punycode for an international
 * name; a URL gives its host. Null when it is not a DNS name of at least two labels (an IP address,
 * a single word, a NUL or a space inside).
 */
export function normalizeDomain(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const text = input.trim();
  if (text === '' || text.length > 2048 || /[\s\0]/.test(text)) return null;
  const host = hostOf(text);
  if (host === null) return null;
  const domain = host.startsWith('www.') ? host.slice(4) : host;
  const labels = domain.split('.');
  if (domain.length > DOMAIN_MAX_LENGTH || labels.length < 2) return null;
  return labels.every((l) => LABEL.test(l)) && TOP_LABEL.test(labels[labels.length - 1]!) ? domain : null;
}
