// A page view's address as Postgres' inet reads it: IPv4, IPv6, an IPv4-mapped IPv6 as its IPv4; else null.
import { isIP } from 'node:net';

export function lookupAddress(ip: string): string | null {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  return isIP(address) === 0 ? null : address;
}
