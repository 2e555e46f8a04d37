// A segment: a saved filter over an account's visitors or companies, and the SQL that finds its
// members now. A visitor is in when its score is at least min_score and it matches every other
// field; a company (the visitors counting for one company key) is in when its score, min(100, the
// sum of its visitors' decayed raw), is at least min_score, it is among the keys whose firmographics
// matched industry and size (resolved by the gateway, which reaches the enrichment service), and
// one of its visitors matches every visitor field (country, network type, pages, events, identified).
import { segmentInputSchema, segmentUpdateSchema as apiSegmentUpdateSchema, type SegmentFilter } from '@glimpse/api';
import { z } from 'zod';

export { segmentFilterSchema, type SegmentFilter, type SegmentKind } from '@glimpse/api';
/** Companies whose firmographics matched industry and size, stored with the segment. */
export const SEGMENT_KEYS_MAX = 50_000;

/** The companies that matched industry and size (the gateway's, never the client's). */
const keys = z.array(z.string().min(1).max(300)).max(SEGMENT_KEYS_MAX).nullable().optional();

/** A segment created through the gateway: the public input (@glimpse/api) and the resolved company keys. */
export const segmentCreateSchema = segmentInputSchema.extend({ keys });
/** A segment changed through the gateway: the public update (@glimpse/api) and the resolved company keys. */
export const segmentUpdateSchema = apiSegmentUpdateSchema.extend({ keys });

/** A zod failure as one message: every issue, each with its path. */
export function issuesMessage(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/** Whether the filter needs the companies' firmographics (then the gateway resolves them to keys). */
export function needsFirmographics(f: SegmentFilter): boolean {
  return f.industry !== undefined || f.size !== undefined;
}

/** A page glob as a LIKE pattern: `*` any run, everything else literal. */
export function globToLike(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/** The start of the alert window holding `at`: windows of `hours` from the Unix epoch (UTC). */
export function alertWindowStart(at: Date, hours: number): Date {
  const ms = hours * 3_600_000;
  return new Date(Math.floor(at.getTime() / ms) * ms);
}

/** SQL text and its parameters, numbered from the first the caller gives. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * The conditions on one visitor_profiles row `p` (account excluded). Parameters from `$first`; `now`
 * is SQL text (a parameter of the caller's).
 */
export function visitorConditions(f: SegmentFilter, first: number, now: string): SqlPart {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (v: unknown) => {
    params.push(v);
    return `$${first + params.length - 1}`;
  };
  if (f.country !== undefined) where.push(`p.location->>'country' = ${param(f.country)}::text`);
  if (f.network_type !== undefined) where.push(`p.network->>'type' = ${param(f.network_type)}::text`);
  if (f.identified !== undefined) where.push(f.identified ? 'p.email IS NOT NULL' : 'p.email IS NULL');
  if (f.pages !== undefined)
    where.push(
      `EXISTS (SELECT 1 FROM jsonb_array_elements(p.last_pages) lp WHERE lp->>'path' LIKE ${param(globToLike(f.pages.pattern))}::text
         AND (lp->>'at')::timestamptz >= ${now} - make_interval(days => ${param(f.pages.within_days)}::int))`,
    );
  if (f.events !== undefined)
    where.push(
      `EXISTS (SELECT 1 FROM jsonb_array_elements(p.intent_contributions) ic WHERE ic->>'key' = ${param(`event:${f.events.name}`)}::text
         AND (ic->>'at')::timestamptz >= ${now} - make_interval(days => ${param(f.events.within_days)}::int))`,
    );
  return { sql: where.length ? where.join(' AND ') : 'true', params };
}
