// The answers of the internal API, shaped from plain rows: a visitor's details, a list item, the
// list's cursor (identified first, then newest last_seen), and a site's last 24 hours zero-filled.
import { AppError } from '@glimpse/errors';
import { VISITOR_ID_PATTERN } from '@glimpse/messaging';
import type { VisitorState } from './plan-collected.js';

export interface VisitorDetails {
  visitor: {
    page_views: number;
    sessions: number;
    first_seen: string;
    last_seen: string;
    last_page?: string;
    engaged_seconds: number;
    identified_by?: { method: string; at: string };
  };
  email?: string;
}

export function detailsOf(v: VisitorState): VisitorDetails {
  const lastPage = v.lastPages[0]?.path;
  return {
    visitor: {
      page_views: v.pageViews,
      sessions: v.sessions,
      first_seen: v.firstSeen,
      last_seen: v.lastSeen,
      ...(lastPage ? { last_page: lastPage } : {}),
      engaged_seconds: v.engagedSeconds,
      ...(v.identifiedMethod && v.identifiedAt ? { identified_by: { method: v.identifiedMethod, at: v.identifiedAt } } : {}),
    },
    ...(v.email ? { email: v.email } : {}),
  };
}

export interface VisitorListItem {
  id: string;
  siteId: string;
  firstSeen: string;
  lastSeen: string;
  pageViews: number;
  sessions: number;
  engagedSeconds: number;
  lastPage: string | null;
  email?: string;
  identifiedBy?: { method: string; at: string };
}

export function listItemOf(v: VisitorState): VisitorListItem {
  return {
    id: v.visitorId,
    siteId: v.siteId,
    firstSeen: v.firstSeen,
    lastSeen: v.lastSeen,
    pageViews: v.pageViews,
    sessions: v.sessions,
    engagedSeconds: v.engagedSeconds,
    lastPage: v.lastPages[0]?.path ?? null,
    ...(v.email ? { email: v.email } : {}),
    ...(v.identifiedMethod && v.identifiedAt ? { identifiedBy: { method: v.identifiedMethod, at: v.identifiedAt } } : {}),
  };
}

/** Where a list page ends, in its order: identified (1) before not (0), then last_seen and id, both descending. */
export interface VisitorCursor {
  identified: boolean;
  lastSeen: string;
  id: string;
}

export function encodeVisitorCursor(c: VisitorCursor): string {
  return Buffer.from(`${c.identified ? 1 : 0}|${c.lastSeen}|${c.id}`).toString('base64url');
}

export function decodeVisitorCursor(value: string): VisitorCursor {
  const invalid = new AppError('invalid_request', 'cursor is not valid: pass the nextCursor of a previous page as it was');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) throw invalid;
  const [flag, time, id, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  if ((flag !== '0' && flag !== '1') || time === undefined || id === undefined || rest.length > 0 || !VISITOR_ID_PATTERN.test(id)) throw invalid;
  const at = new Date(time);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== time) throw invalid;
  return { identified: flag === '1', lastSeen: time, id };
}

export const TRAFFIC_HOURS = 24;

export interface HourRow {
  hour: string;
  pageViews: number;
  visitors: number;
  bots: number;
}

/** The first hour of the 24 ending with the current one. */
export function trafficSince(now: Date): Date {
  const d = new Date(now);
  d.setUTCMinutes(0, 0, 0);
  return new Date(d.getTime() - (TRAFFIC_HOURS - 1) * 3_600_000);
}

/** 24 hours oldest first, ending with the current hour; hours without a row are zeros. */
export function zeroFilledHours(rows: readonly HourRow[], now: Date): HourRow[] {
  const byHour = new Map(rows.map((r) => [new Date(r.hour).toISOString(), r]));
  const start = trafficSince(now).getTime();
  return Array.from({ length: TRAFFIC_HOURS }, (_, i) => {
    const hour = new Date(start + i * 3_600_000).toISOString();
    const r = byHour.get(hour);
    return { hour, pageViews: r?.pageViews ?? 0, visitors: r?.visitors ?? 0, bots: r?.bots ?? 0 };
  });
}
