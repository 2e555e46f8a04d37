// Assembles the visitor details record (api.md §2.1) from a person's enriched record, plus the
// visitor's page views when the account has them.
import type { PersonField, VisitorDetails as DetailsRecord } from '@glimpse/api';
import { isPlainObject } from './conform-record.js';
import type { EnrichedRecord, Experience } from './enriched-record.js';
import { normalizeEmail } from './identifiers.js';
import { absoluteHttpUrl } from './urls.js';

/**
 * The seven api.md §2.1 fields. Every one is a string and none is required (api.md §2.1), so a field the person
 * lacks is left out, never null; `email` is a valid address and `pronet_url` an absolute URI. The
 * spec says the lookup returns page-view fields too without showing them: we add `page_views` (how
 * many pages the visitor viewed) and `last_seen_at` (ISO 8601, the latest view, when known), only
 * when the visitor has page-view data, so a client reading only the seven fields sees exactly api.md §2.1.
 * The fields the site tag adds (sessions, identified_by, …) are the gateway's (visitorDetailsSchema).
 */
export type VisitorDetails = Pick<DetailsRecord, PersonField | 'page_views' | 'last_seen_at'>;

export interface PageViews {
  count: number;
  lastSeenAt: string | null;
}

function text(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isoTimestamp(value: unknown): string | null {
  if (typeof value !== 'string' && !(value instanceof Date)) return null;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function latest(timestamps: (string | null)[]): string | null {
  return (
    timestamps
      .filter((t): t is string => t !== null)
      .sort()
      .at(-1) ?? null
  );
}

/**
 * Page views as a visitor row may hold them: a count; a list of views, each a timestamp or
 * `{at}` / `{viewed_at}`; or an object whose `count` (or `page_views`, `pageViews`, `views`) is
 * either of those, with an optional `last_seen_at` (or `lastSeenAt`). Null otherwise.
 */
export function readPageViews(value: unknown): PageViews | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? { count: value, lastSeenAt: null } : null;
  if (Array.isArray(value)) {
    const times = value.map((view) => isoTimestamp(isPlainObject(view) ? (view.at ?? view.viewed_at) : view));
    return { count: value.length, lastSeenAt: latest(times) };
  }
  if (isPlainObject(value)) {
    const inner = value.count ?? value.page_views ?? value.pageViews ?? value.views;
    const views = typeof inner === 'number' || Array.isArray(inner) ? readPageViews(inner) : null;
    if (!views) return null;
    return { count: views.count, lastSeenAt: isoTimestamp(value.last_seen_at ?? value.lastSeenAt) ?? views.lastSeenAt };
  }
  return null;
}

/** The current position: the one marked primary, else the latest-started one without an end date. */
export function primaryExperience(record: EnrichedRecord): Experience | undefined {
  const marked = record.experience.find((e) => e.is_primary === true);
  if (marked) return marked;
  const current = record.experience.filter((e) => e.end_date === null);
  return current.sort((a, b) => (b.start_date ?? '').localeCompare(a.start_date ?? ''))[0];
}

export function toVisitorDetails(record: EnrichedRecord, pageViews?: unknown): VisitorDetails {
  const { traits, profile } = record;
  const firstName = text(traits.first_name);
  const lastName = text(traits.last_name);
  const primary = primaryExperience(record);
  // The work address first: a visitor of a business site is most useful as a professional contact.
  const emailCandidates = [traits.work_email, profile.email, traits.email, traits.recommended_personal_email, traits.emails[0]?.address];
  const fields: VisitorDetails = {
    firstName,
    lastName,
    name: text(traits.full_name) ?? text([firstName, lastName].filter(Boolean).join(' ')),
    email: emailCandidates.map(normalizeEmail).find((e) => e !== null) ?? undefined,
    company: text(record.company.name) ?? text(record.organization.name) ?? text(primary?.company.name),
    company_role: text(record.job.title) ?? text(primary?.title.name),
    pronet_url: absoluteHttpUrl(record.social.pronet.url),
  };
  // Absent fields are left out (JSON.stringify drops undefined too, but the object is returned as well).
  const details = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as VisitorDetails;
  return withPageViews(details, pageViews);
}

/** The details with the visitor's page views added, when it has any. */
export function withPageViews(details: VisitorDetails, pageViews: unknown): VisitorDetails {
  const views = readPageViews(pageViews);
  if (!views) return details;
  return { ...details, page_views: views.count, ...(views.lastSeenAt === null ? {} : { last_seen_at: views.lastSeenAt }) };
}

/**
 * The stored details text (a JSON object as JSON.stringify wrote it) with the page views added:
 * a splice, so a lookup never parses and re-serialises the person's fields.
 */
export function servedDetails(detailsJson: string, pageViews: unknown): string {
  const views = readPageViews(pageViews);
  if (!views) return detailsJson;
  const extra = `"page_views":${views.count}${views.lastSeenAt === null ? '' : `,"last_seen_at":${JSON.stringify(views.lastSeenAt)}`}`;
  return `${detailsJson.slice(0, -1)}${detailsJson.length > 2 ? ',' : ''}${extra}}`;
}
