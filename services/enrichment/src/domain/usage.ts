// Usage by UTC day for the management API: every day of the range (zero-filled, oldest first) and
// the totals. The range is inclusive; by default the last 30 days, today included.
import { AppError } from '@glimpse/errors';
import { billingPeriodOf } from './billed-person.js';

export interface UsageTotals {
  identityMatches: number;
  enrichedRecords: number;
}

/** What the usage answers read (data/usage-repository.ts and data/billed-person-repository.ts). */
export interface UsageStore {
  /** The days with usage from `from` to `to` (inclusive, YYYY-MM-DD), oldest first. */
  usageBetween(accountId: string, from: string, to: string): Promise<({ day: string } & UsageTotals)[]>;
  /** How many persons are billed to the account in the period. */
  billedPersonsIn(accountId: string, period: string): Promise<number>;
}

const DAY_MS = 86_400_000;
/** A year (leap or not): long enough for any chart, short enough to answer zero-filled. */
export const MAX_USAGE_DAYS = 366;
const DEFAULT_DAYS = 30;

export interface UsageRange {
  from: string;
  to: string;
}

function parseDay(value: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw new AppError('invalid_request', `${name} must be a date written YYYY-MM-DD`);
  }
  return ms;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** from and to (both optional, YYYY-MM-DD, UTC days); nothing else. */
export function parseUsageRange(query: Record<string, unknown>, now = new Date()): UsageRange {
  for (const [name, value] of Object.entries(query)) {
    if (name !== 'from' && name !== 'to') throw new AppError('invalid_request', `unknown query parameter "${name}"; this endpoint takes from, to`);
    if (typeof value !== 'string') throw new AppError('invalid_request', `query parameter "${name}" must be given once`);
  }
  const { from, to } = query as { from?: string; to?: string };
  const toMs = to === undefined ? parseDay(day(now.getTime()), 'to') : parseDay(to, 'to');
  const fromMs = from === undefined ? toMs - (DEFAULT_DAYS - 1) * DAY_MS : parseDay(from, 'from');
  if (fromMs > toMs) throw new AppError('invalid_request', 'from must not be after to');
  if ((toMs - fromMs) / DAY_MS + 1 > MAX_USAGE_DAYS) throw new AppError('invalid_request', `the range covers at most ${MAX_USAGE_DAYS} days`);
  return { from: day(fromMs), to: day(toMs) };
}

export interface UsageReport {
  items: ({ day: string } & UsageTotals)[];
  totals: UsageTotals;
}

/** Fills the days without usage with zeros and adds the totals. */
export function usageReport({ from, to }: UsageRange, recorded: ({ day: string } & UsageTotals)[]): UsageReport {
  const byDay = new Map(recorded.map((r) => [r.day, r]));
  const items: UsageReport['items'] = [];
  for (let ms = Date.parse(`${from}T00:00:00.000Z`); ms <= Date.parse(`${to}T00:00:00.000Z`); ms += DAY_MS) {
    const d = day(ms);
    const r = byDay.get(d);
    items.push({ day: d, identityMatches: r?.identityMatches ?? 0, enrichedRecords: r?.enrichedRecords ?? 0 });
  }
  const totals = items.reduce((t, i) => ({ identityMatches: t.identityMatches + i.identityMatches, enrichedRecords: t.enrichedRecords + i.enrichedRecords }), {
    identityMatches: 0,
    enrichedRecords: 0,
  });
  return { items, totals };
}

/** The current billing period (the calendar month, UTC) and the persons billed to the account in it. */
export interface PeriodUsage {
  /** The first day of the month, YYYY-MM-DD. */
  start: string;
  /** Persons whose fields were disclosed or enriched by email this month: each billed once in it. */
  personsBilled: number;
}

export async function periodUsage(usage: Pick<UsageStore, 'billedPersonsIn'>, accountId: string, now = new Date()): Promise<PeriodUsage> {
  const start = billingPeriodOf(day(now.getTime()));
  return { start, personsBilled: await usage.billedPersonsIn(accountId, start) };
}

export async function accountUsage(usage: UsageStore, accountId: string, query: Record<string, unknown>): Promise<UsageReport & { period: PeriodUsage }> {
  const range = parseUsageRange(query);
  const [recorded, period] = await Promise.all([usage.usageBetween(accountId, range.from, range.to), periodUsage(usage, accountId)]);
  return { ...usageReport(range, recorded), period };
}
