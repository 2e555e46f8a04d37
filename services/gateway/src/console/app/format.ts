// Values as people read them: dates in the browser's locale, counts with their noun, durations.
import { h, type Child } from './dom';

export const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const dateTimeSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
// Visitors' times are recent: day and time, no year, so the table fits the page.
export const recentTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** A <time> with the ISO value as its title, or `none` when there is no date. */
export const when = (iso: string | null | undefined, none = '–', format = dateTime): Node | string =>
  iso ? h('time', { datetime: iso, title: iso }, format.format(new Date(iso))) : none;

/** Names as a comma-separated list of <code>. */
export const names = (list: readonly string[]): Child => (list.length ? list.map((n, i) => [i ? ', ' : '', h('code', {}, n)]) : '–');

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

// Seconds as people read them: 45 s, 3 min 05 s, 1 h 02 min.
export function duration(seconds: number): string {
  const secs = Math.max(0, Math.round(seconds));
  if (secs < 60) return `${secs} s`;
  if (secs < 3600) return `${Math.floor(secs / 60)} min ${String(secs % 60).padStart(2, '0')} s`;
  return `${Math.floor(secs / 3600)} h ${String(Math.floor((secs % 3600) / 60)).padStart(2, '0')} min`;
}

export const confidence = (c: number | null | undefined): string => (typeof c === 'number' ? c.toFixed(2) : '–');

const countFormat = new Intl.NumberFormat();
/** A count with the locale's grouping: 1,234. */
export const count = (n: number): string => countFormat.format(n);

/** Where someone or something is, as "City, Region, CC"; `none` when nothing is known. */
export const place = (where: { city?: string | null; region?: string | null; country?: string | null } | null | undefined, none = '–'): string =>
  [where?.city, where?.region, where?.country].filter((part) => part).join(', ') || none;

const NETWORK_TYPE_LABELS: Readonly<Record<string, string>> = { isp: 'ISP', unknown: 'unknown type of' };

/** A visitor's network as "BT, ISP network, AS 2856"; `none` when unknown. */
export function network(n: { name: string | null; type: string; asn: number | null } | null | undefined, none = '–'): string {
  if (!n) return none;
  return [n.name, `${NETWORK_TYPE_LABELS[n.type] ?? n.type} network`, n.asn === null ? null : `AS ${n.asn}`].filter((part) => part).join(', ');
}
