// The kinds of network an IP range belongs to, as the IP data vendors type them (IPinfo's
// company.type, MaxMind's user_type and connection_type), and which of them name a company: an
// address on a home, mobile or hosting network says who runs the network, not who the visitor works for.

export const NETWORK_TYPES = ['business', 'education', 'government', 'isp', 'mobile', 'hosting', 'unknown'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

/** Only these name the company behind a visitor; a visitor on any other network keeps the network and stays anonymous. */
export const COMPANY_NETWORK_TYPES: readonly NetworkType[] = ['business', 'education', 'government'];

export function isNetworkType(value: unknown): value is NetworkType {
  return typeof value === 'string' && (NETWORK_TYPES as readonly string[]).includes(value);
}

export function namesCompany(type: NetworkType): boolean {
  return COMPANY_NETWORK_TYPES.includes(type);
}
