// One row of an IP dataset (visitors.ip_ranges) whatever the file's format, and the checks of its
// fields, so that a value Postgres would refuse (a NUL byte, an asn that is not a number) is a
// reported line rather than a failed COPY, and the three formats hold their values to the same rules.
import { isNetworkType, NETWORK_TYPES, type NetworkType } from '@glimpse/validation';
import type { Bounds } from './ip-bounds.js';

export interface IpRangeRow extends Bounds {
  asn: number | null;
  name: string | null;
  domain: string | null;
  /** Null when the file does not say: the classifier decides when the dataset is loaded. */
  type: NetworkType | null;
}

export type RowFields = Omit<IpRangeRow, keyof Bounds>;

export type Checked<T> = { value: T } | { error: string };

const MAX_ASN = 4_294_967_295;
const MAX_NAME = 200;
const ASN_TEXT = /^(?:AS)?(\d{1,10})$/i;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

const absent = (value: unknown) => value === undefined || value === null || value === '';

/** An autonomous system number: 15169, "15169" or "AS15169"; absent is null. */
export function checkAsn(value: unknown): Checked<number | null> {
  if (absent(value)) return { value: null };
  const text = typeof value === 'string' ? ASN_TEXT.exec(value.trim())?.[1] : undefined;
  const asn = typeof value === 'number' ? value : text === undefined ? NaN : Number(text);
  if (!Number.isInteger(asn) || asn < 0 || asn > MAX_ASN) return { error: 'asn: not an AS number (15169 or AS15169)' };
  return { value: asn };
}

/** An organisation's name, trimmed; absent or blank is null. */
export function checkName(value: unknown): Checked<string | null> {
  if (absent(value)) return { value: null };
  if (typeof value !== 'string') return { error: 'name: not a string' };
  const name = value.trim();
  if (name.includes('\0')) return { error: 'name: contains a NUL byte' };
  if (name.length > MAX_NAME) return { error: `name: longer than ${MAX_NAME} characters` };
  return { value: name === '' ? null : name };
}

/** A domain name, lower-cased; absent is null. */
export function checkDomain(value: unknown): Checked<string | null> {
  if (absent(value)) return { value: null };
  if (typeof value !== 'string' || !DOMAIN.test(value.trim())) return { error: 'domain: not a domain name' };
  return { value: value.trim().toLowerCase() };
}

/** One of NETWORK_TYPES; absent is null. */
export function checkType(value: unknown): Checked<NetworkType | null> {
  if (absent(value)) return { value: null };
  const type = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (!isNetworkType(type)) return { error: `type: one of ${NETWORK_TYPES.join(', ')}` };
  return { value: type };
}

/** The four fields checked together: the first bad one is the error. */
export function checkFields(raw: { asn?: unknown; name?: unknown; domain?: unknown; type?: unknown }): Checked<RowFields> {
  const asn = checkAsn(raw.asn);
  if ('error' in asn) return asn;
  const name = checkName(raw.name);
  if ('error' in name) return name;
  const domain = checkDomain(raw.domain);
  if ('error' in domain) return domain;
  const type = checkType(raw.type);
  if ('error' in type) return type;
  return { value: { asn: asn.value, name: name.value, domain: domain.value, type: type.value } };
}
