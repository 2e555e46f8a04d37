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

/** A value refused, and why (a checked value is never an object, so the two are told apart cheaply). */
export interface Invalid {
  error: string;
}

export const isInvalid = (value: unknown): value is Invalid => typeof value === 'object' && value !== null;

const MAX_ASN = 4_294_967_295;
const MAX_NAME = 200;
const ASN_TEXT = /^(?:AS)?(\d{1,10})$/i;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

const absent = (value: unknown) => value === undefined || value === null || value === '';

/** An autonomous system number: 15169, "15169" or "AS15169"; absent is null. */
export function checkAsn(value: unknown): number | null | Invalid {
  if (absent(value)) return null;
  const text = typeof value === 'string' ? ASN_TEXT.exec(value.trim())?.[1] : undefined;
  const asn = typeof value === 'number' ? value : text === undefined ? NaN : Number(text);
  if (!Number.isInteger(asn) || asn < 0 || asn > MAX_ASN) return { error: 'asn: not an AS number (15169 or AS15169)' };
  return asn;
}

/** An organisation's name, trimmed; absent or blank is null. */
export function checkName(value: unknown): string | null | Invalid {
  if (absent(value)) return null;
  if (typeof value !== 'string') return { error: 'name: not a string' };
  const name = value.trim();
  if (name.includes('\0')) return { error: 'name: contains a NUL byte' };
  if (name.length > MAX_NAME) return { error: `name: longer than ${MAX_NAME} characters` };
  return name === '' ? null : name;
}

/** A domain name, lower-cased; absent is null. */
export function checkDomain(value: unknown): string | null | Invalid {
  if (absent(value)) return null;
  if (typeof value !== 'string' || !DOMAIN.test(value.trim())) return { error: 'domain: not a domain name' };
  return value.trim().toLowerCase();
}

/** One of NETWORK_TYPES; absent is null. */
export function checkType(value: unknown): NetworkType | null | Invalid {
  if (absent(value)) return null;
  const type = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (!isNetworkType(type)) return { error: `type: one of ${NETWORK_TYPES.join(', ')}` };
  return type;
}

/** The four fields checked together: the first bad one is the error. */
export function checkFields(raw: { asn?: unknown; name?: unknown; domain?: unknown; type?: unknown }): RowFields | Invalid {
  const asn = checkAsn(raw.asn);
  if (isInvalid(asn)) return asn;
  const name = checkName(raw.name);
  if (isInvalid(name)) return name;
  const domain = checkDomain(raw.domain);
  if (isInvalid(domain)) return domain;
  const type = checkType(raw.type);
  if (isInvalid(type)) return type;
  return { asn, name, domain, type };
}
