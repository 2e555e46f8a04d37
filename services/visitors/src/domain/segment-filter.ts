// A segment: a saved filter over an account's visitors or companies, and the SQL that finds its
// members now. A visitor is in when its score is at least min_score and it matches every other
// field; a company (the visitors counting for one company key) is in when its score, min(100, the
// sum of its visitors' decayed raw), is at least min_score, it is among the keys whose firmographics
// matched industry and size (resolved by the gateway, which reaches the enrichment service), and
// one of its visitors matches every visitor field (country, network type, pages, events, identified).
import { z } from 'zod';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import { NETWORK_TYPES } from '@glimpse/validation';
import { PAGE_RULE_PATTERN_MAX, validPageRulePattern } from './page-rule-pattern.js';

export const SEGMENT_KINDS = ['visitors', 'companies'] as const;
export type SegmentKind = (typeof SEGMENT_KINDS)[number];
/** The longest window of pages or events seen (visitor_profiles keep the last 20 pages). */
export const SEGMENT_WITHIN_DAYS_MAX = 400;
export const ALERT_WINDOW_HOURS_MAX = 24 * 31;
/** Companies whose firmographics matched industry and size, stored with the segment. */
export const SEGMENT_KEYS_MAX = 50_000;

const withinDays = z
  .number({ error: 'within_days must be a whole number of days' })
  .int('within_days must be a whole number of days')
  .min(1, 'within_days must be at least 1')
  .max(SEGMENT_WITHIN_DAYS_MAX, `within_days must be at most ${SEGMENT_WITHIN_DAYS_MAX}`);

export const segmentFilterSchema = z.strictObject({
  min_score: z.number({ error: 'min_score must be a number' }).min(0, 'min_score must be 0 to 100').max(100, 'min_score must be 0 to 100').optional(),
  country: z
    .string({ error: 'country must be a two-letter ISO 3166 code' })
    .regex(/^[A-Za-z]{2}$/, 'country must be a two-letter ISO 3166 code')
    .transform((c) => c.toUpperCase())
    .optional(),
  industry: z.string({ error: 'industry must be a string' }).trim().min(1, 'industry must not be empty').max(100).optional(),
  size: z.string({ error: 'size must be a string' }).trim().min(1, 'size must not be empty').max(40).optional(),
  network_type: z.enum(NETWORK_TYPES, { error: `network_type must be one of ${NETWORK_TYPES.join(', ')}` }).optional(),
  pages: z
    .strictObject({
      pattern: z
        .string({ error: 'pages.pattern must be a string' })
        .refine(validPageRulePattern, `pattern must start with '/' and be at most ${PAGE_RULE_PATTERN_MAX} characters (use * for any run of characters)`),
      within_days: withinDays,
    })
    .optional(),
  events: z
    .strictObject({
      name: z.string({ error: 'events.name must be a string' }).regex(EVENT_NAME_PATTERN, 'name must be 1-64 characters of letters, digits, _ . : -'),
      within_days: withinDays,
    })
    .optional(),
  identified: z.boolean({ error: 'identified must be true or false' }).optional(),
});
export type SegmentFilter = z.infer<typeof segmentFilterSchema>;

const name = z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters');
const alertWindowHours = z
  .number({ error: 'alert_window_hours must be a whole number' })
  .int('alert_window_hours must be a whole number')
  .min(1, 'alert_window_hours must be at least 1')
  .max(ALERT_WINDOW_HOURS_MAX, `alert_window_hours must be at most ${ALERT_WINDOW_HOURS_MAX}`);
/** The companies that matched industry and size (the gateway's, never the client's). */
const keys = z.array(z.string().min(1).max(300)).max(SEGMENT_KEYS_MAX).nullable().optional();

export const segmentCreateSchema = z.strictObject({
  name,
  kind: z.enum(SEGMENT_KINDS, { error: 'kind must be visitors or companies' }),
  filter: segmentFilterSchema,
  alert_window_hours: alertWindowHours.optional(),
  keys,
});
export const segmentUpdateSchema = z.strictObject({
  name: name.optional(),
  filter: segmentFilterSchema.optional(),
  alert_window_hours: alertWindowHours.optional(),
  keys,
});

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
