// The answers of the internal API, shaped from plain rows: a visitor's details, a list item, the
// list's cursor (identified first, then newest last_seen), and a site's last 24 hours zero-filled.
import type { IdentifiedBy as ApiIdentifiedBy, InternalVisitorPageViews, VisitorRecord, VisitorSummary } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { IDENTIFICATION_CONFIDENCE, VISITOR_ID_PATTERN } from '@glimpse/messaging';
import type { Location, Network, VisitorState } from './collected-records.js';
import { visitorIntent, type IntentAnswer, type IntentWeights } from './intent-score.js';

/** A profile's intent answer now ({score, reasons}) with the account's weights. */
export const profileIntent = (v: VisitorState, now: Date, w: IntentWeights, max?: number): IntentAnswer =>
  visitorIntent({ raw: v.intentRaw, at: v.intentAt, contributions: v.intentContributions }, now, w, max);

/** How the visitor was tied to a person (@glimpse/api's IdentifiedBy), every field known: verified is a valid hash or an email link; false, a claim (and the company from an address). */
export type IdentifiedBy = Required<ApiIdentifiedBy>;

export interface VisitorDetails {
  visitor: InternalVisitorPageViews & {
    identified_by?: IdentifiedBy;
    /** The company behind the visitor's address (method ip_company), its name. */
    company?: string;
    /** The network of its last located page view, and where that was. */
    network?: Network;
    location?: Location;
    /** The company it counts for (an email's domain or the address's company), for the firmographics. */
    company_key?: string;
    intent?: IntentAnswer;
  };
  email?: string;
}

/** The person method that identified the visitor; else, the company its address named; else none. */
export function identifiedByOf(v: VisitorState): IdentifiedBy | undefined {
  if (v.email && v.identifiedMethod && v.identifiedAt) {
    const method = v.identifiedMethod as keyof typeof IDENTIFICATION_CONFIDENCE;
    // A link from before verification existed: an email link was checked then too; anything else is a claim.
    const verified = v.identifiedVerified ?? method === 'email_link';
    return { method: v.identifiedMethod, at: v.identifiedAt, confidence: v.identifiedConfidence ?? IDENTIFICATION_CONFIDENCE[method] ?? 1, verified };
  }
  if (v.company && v.companyAt) return { method: 'ip_company', at: v.companyAt, confidence: IDENTIFICATION_CONFIDENCE.ip_company, verified: false };
  return undefined;
}

export function detailsOf(v: VisitorState, intent?: IntentAnswer): VisitorDetails {
  const lastPage = v.lastPages[0]?.path;
  const by = identifiedByOf(v);
  return {
    visitor: {
      page_views: v.pageViews,
      sessions: v.sessions,
      first_seen: v.firstSeen,
      last_seen: v.lastSeen,
      ...(lastPage ? { last_page: lastPage } : {}),
      engaged_seconds: v.engagedSeconds,
      ...(by ? { identified_by: by } : {}),
      ...(v.company ? { company: v.company.name } : {}),
      ...(v.network ? { network: v.network } : {}),
      ...(v.location ? { location: v.location } : {}),
      ...(v.companyKey ? { company_key: v.companyKey } : {}),
      ...(intent ? { intent } : {}),
    },
    ...(v.email ? { email: v.email } : {}),
  };
}

/** A list's visitor (@glimpse/api's VisitorSummary): the profile's site, times and counts as they are, its id, last page and identification. */
export type VisitorListItem = VisitorSummary;

export function listItemOf(v: VisitorState, intent?: IntentAnswer): VisitorListItem {
  const by = identifiedByOf(v);
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
    ...(by ? { identifiedBy: by } : {}),
    ...(v.company ? { company: v.company.name } : {}),
    network: v.network,
    location: v.location,
    companyKey: v.companyKey,
    ...(intent ? { intent } : {}),
  };
}

/** The full record of one visitor (@glimpse/api's VisitorRecord, the console's visitor page): the list item's fields, then its pages, sessions, identity history, consent and company. */
export type { VisitorRecord } from '@glimpse/api';

export function recordOf(
  v: VisitorState,
  sessions: VisitorRecord['sessionList'],
  links: VisitorRecord['identityHistory'],
  intent?: IntentAnswer,
): VisitorRecord {
  const { company: _name, ...item } = listItemOf(v, intent);
  return {
    ...item,
    firstReferrer: v.firstReferrer,
    firstUtm: v.firstUtm,
    cookieless: v.cookieless,
    pages: v.lastPages,
    sessionList: sessions,
    identityHistory: links,
    consent: { state: v.consent, at: v.consentAt },
    company: v.company ? { ...v.company, at: v.companyAt } : null,
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

/** Where a page sorted by score ends: the intent rank (null: unscored, last) and the visitor id, both descending. */
export interface VisitorScoreCursor {
  rank: number | null;
  id: string;
}

export function encodeVisitorScoreCursor(c: VisitorScoreCursor): string {
  return Buffer.from(`s|${c.rank === null ? '' : String(c.rank)}|${c.id}`).toString('base64url');
}

export function decodeVisitorScoreCursor(value: string): VisitorScoreCursor {
  const invalid = new AppError('invalid_request', 'cursor is not valid: pass the nextCursor of a previous page as it was (with the same sort)');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) throw invalid;
  const [flag, rank, id, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  if (flag !== 's' || rank === undefined || id === undefined || rest.length > 0 || !VISITOR_ID_PATTERN.test(id)) throw invalid;
  if (rank === '') return { rank: null, id };
  const n = Number(rank);
  if (!Number.isFinite(n) || String(n) !== rank) throw invalid;
  return { rank: n, id };
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
