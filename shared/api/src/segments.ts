// Segments (saved filters over an account's visitors or companies, with a live count and their
// members by score) and the account's alert settings (the daily digest's time zone and hour), and
// their place in the OpenAPI document.
import { z } from 'zod';
import { EVENT_NAME_PATTERN, NETWORK_TYPES } from '@glimpse/validation';
import { PAGE_RULE_PATTERN_MAX, validPageRulePattern } from './identification.js';
import { alertMemberSchema } from './alerts.js';
import { withBody } from './operation.js';

const at = z.iso.datetime();

const SEGMENT_KINDS = ['visitors', 'companies'] as const;
export type SegmentKind = (typeof SEGMENT_KINDS)[number];
/** The longest window of pages or events seen (a visitor keeps its last 20 pages). */
const SEGMENT_WITHIN_DAYS_MAX = 400;
/** The longest alert window: 31 days. */
const ALERT_WINDOW_HOURS_MAX = 24 * 31;

const withinDays = z
  .number({ error: 'within_days must be a whole number of days' })
  .int('within_days must be a whole number of days')
  .min(1, 'within_days must be at least 1')
  .max(SEGMENT_WITHIN_DAYS_MAX, `within_days must be at most ${SEGMENT_WITHIN_DAYS_MAX}`)
  .meta({ description: 'seen within this many days (1 to 400)' });

// The filter's string rules are published in the document (pattern, minLength, maxLength); their
// messages are the API's.
/** A two-letter country code, any case (upper-cased when parsed). */
const COUNTRY_CODE = /^[A-Za-z]{2}$/;
const countryMessage = 'country must be a two-letter ISO 3166 code';
/** A firmographics label the filter matches (industry, size): trimmed, not empty, at most `max` characters (zod's words for max). */
const firmographicLabel = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `Too big: expected string to have <=${max} characters`);

export const segmentFilterSchema = z
  .strictObject({
    min_score: z
      .number({ error: 'min_score must be a number' })
      .min(0, 'min_score must be 0 to 100')
      .max(100, 'min_score must be 0 to 100')
      .optional()
      .meta({ description: 'the intent score now at least this (0 to 100); a company: min(100, the sum of its visitors\u2019 scores)' }),
    country: z
      .string({ error: countryMessage })
      .regex(COUNTRY_CODE, countryMessage)
      .overwrite((c) => c.toUpperCase())
      .optional()
      .meta({ description: 'ISO 3166 two-letter code of where the visitor was last (a company: one of its visitors)' }),
    industry: firmographicLabel('industry', 100)
      .optional()
      .meta({ description: "the company's firmographics' industry, any case (only visitors and companies with a known company)" }),
    size: firmographicLabel('size', 40).optional().meta({ description: "the company's firmographics' size label, e.g. 51-200" }),
    network_type: z
      .enum(NETWORK_TYPES, { error: `network_type must be one of ${NETWORK_TYPES.join(', ')}` })
      .optional()
      .meta({ description: "the network of the visitor's last located page view" }),
    pages: z
      .strictObject({
        pattern: z
          .string({ error: 'pages.pattern must be a string' })
          .refine(validPageRulePattern, `pattern must start with '/' and be at most ${PAGE_RULE_PATTERN_MAX} characters (use * for any run of characters)`)
          .meta({ description: "a path glob like a page rule's: starts with '/', * any run of characters" }),
        within_days: withinDays,
      })
      .optional()
      .meta({ description: 'read a matching page within the window (among its last 20 pages)' }),
    events: z
      .strictObject({
        name: z
          .string({ error: 'events.name must be a string' })
          .regex(EVENT_NAME_PATTERN, 'name must be 1-64 characters of letters, digits, _ . : -')
          .meta({ description: 'a tracked event name' }),
        within_days: withinDays,
      })
      .optional()
      .meta({ description: 'tracked this event (one with a weight in the intent settings, so it is part of the score) within the window' }),
    identified: z
      .boolean({ error: 'identified must be true or false' })
      .optional()
      .meta({ description: 'identified (an email known) or not; a company: one of its visitors' }),
  })
  .meta({ id: 'SegmentFilter', description: 'every field given must hold; none: everyone' });

const name = z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters');
const kind = z.enum(SEGMENT_KINDS, { error: 'kind must be visitors or companies' });
const alertWindowHours = z
  .number({ error: 'alert_window_hours must be a whole number' })
  .int('alert_window_hours must be a whole number')
  .min(1, 'alert_window_hours must be at least 1')
  .max(ALERT_WINDOW_HOURS_MAX, `alert_window_hours must be at most ${ALERT_WINDOW_HOURS_MAX}`);

export const segmentInputSchema = z
  .strictObject({
    name: name.meta({ description: 'unique in the account' }),
    kind,
    filter: segmentFilterSchema,
    alert_window_hours: alertWindowHours
      .optional()
      .meta({ description: 'a member entering is announced (segment.entered) at most once per window of this many hours (default 24)' }),
  })
  .meta({ id: 'SegmentInput' });

export const segmentUpdateSchema = z
  .strictObject({
    name: name.optional(),
    filter: segmentFilterSchema
      .optional()
      .meta({ description: 'the whole new filter; its members start afresh (who is in at the next evaluation is not announced)' }),
    alert_window_hours: alertWindowHours.optional(),
  })
  .meta({ id: 'SegmentUpdate' });

export const segmentSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    kind,
    filter: segmentFilterSchema,
    alert_window_hours: z.number().int(),
    count: z.number().int().min(0).meta({ description: 'how many are in the segment now' }),
    created_at: at,
    updated_at: at,
    evaluated_at: at.nullable().meta({ description: 'when the background evaluation last took its members (alerts come from it)' }),
  })
  .meta({ id: 'Segment' });

export const segmentListSchema = z.strictObject({ items: z.array(segmentSchema) }).meta({ id: 'SegmentList' });

/** A member in the members list: an alert's member (alerts.ts) with the list's own words, its score whole and its reasons' points whole. */
export const segmentMemberSchema = alertMemberSchema
  .extend({
    key: z.string().meta({ description: 'the visitor id (GET /account/visitors/{id}), or the company key (GET /account/companies/{key})' }),
    score: z.number().int().min(0).max(100).meta({ description: 'the intent score now' }),
    reasons: z
      .array(z.strictObject({ reason: z.string(), points: z.number().int(), at }))
      .meta({ description: 'its top reasons (at most 3), best first; their points add up to the score' }),
    last_pages: z.array(z.strictObject({ path: z.string(), title: z.string().nullable(), at })).meta({ description: 'newest first, at most 5' }),
  })
  .meta({ id: 'SegmentMember' });

export const segmentMemberListSchema = z
  .strictObject({ items: z.array(segmentMemberSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'SegmentMemberList' });

/** A time zone the runtime knows (an IANA name, at most 64 characters). */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.length <= 64;
  } catch {
    return false;
  }
}

const timeZoneMessage = 'time_zone must be an IANA time zone, e.g. Europe/Berlin';
const digestHourMessage = 'digest_hour must be a whole number from 0 to 23';

export const alertSettingsSchema = z
  .strictObject({
    time_zone: z
      .string({ error: timeZoneMessage })
      .refine(validTimeZone, timeZoneMessage)
      .meta({ description: 'an IANA time zone, e.g. Europe/Berlin (default UTC)' }),
    digest_hour: z
      .number({ error: digestHourMessage })
      .int(digestHourMessage)
      .min(0, digestHourMessage)
      .max(23, digestHourMessage)
      .meta({ description: "the local hour each segment's daily digest is sent at or after (default 9)" }),
  })
  .meta({ id: 'AlertSettings' });

type Ok = { status: number; description: string; schema?: z.ZodType };
type Op = (
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  operationId: string,
  summary: string,
  ok: Ok,
  request?: Record<string, unknown>,
  more?: Ok[] | Record<number, unknown>,
) => unknown;

/** The segment and alert settings operations, with the management API's errors (`op` registers one). */
export function registerSegments(op: Op): void {
  registerSegmentOperations(op);
  registerAlertSettings(op);
}

/** The segments: list, create, read, change, delete, and their members. */
function registerSegmentOperations(op: Op): void {
  const id = { params: z.object({ id: z.string().meta({ description: "the segment's id (a UUID); another account's is 404" }) }) };
  op('get', '/account/segments', 'segments.list', "The account's segments, each with its count now", {
    status: 200,
    description: 'the segments',
    schema: segmentListSchema,
  });
  op(
    'post',
    '/account/segments',
    'segments.create',
    'Create a segment (at most 100 per account; a taken name is 400)',
    { status: 201, description: 'created, with its count now', schema: segmentSchema },
    withBody(segmentInputSchema),
  );
  op('get', '/account/segments/{id}', 'segments.get', 'A segment with its count now', { status: 200, description: 'the segment', schema: segmentSchema }, id);
  op(
    'patch',
    '/account/segments/{id}',
    'segments.update',
    'Change a segment’s name, filter or alert window',
    { status: 200, description: 'the segment', schema: segmentSchema },
    withBody(segmentUpdateSchema, id),
  );
  op(
    'delete',
    '/account/segments/{id}',
    'segments.delete',
    'Delete a segment (its members and pending alerts go with it)',
    { status: 204, description: 'deleted' },
    id,
  );
  op(
    'get',
    '/account/segments/{id}/members',
    'segments.members',
    'Who is in the segment now, best score first, each with its score and top reasons',
    { status: 200, description: 'a page of members', schema: segmentMemberListSchema },
    {
      ...id,
      query: z.object({
        limit: z.string().optional().meta({ description: '1 to 200 (default 50)' }),
        cursor: z.string().optional().meta({ description: 'nextCursor of the previous page' }),
      }),
    },
  );
}

/** The account's alert settings: the daily digest's time zone and hour. */
function registerAlertSettings(op: Op): void {
  op('get', '/account/alert-settings', 'alertSettings.get', 'The daily digest’s time zone and hour', {
    status: 200,
    description: 'the settings',
    schema: alertSettingsSchema,
  });
  op(
    'put',
    '/account/alert-settings',
    'alertSettings.put',
    'Set the daily digest’s time zone and hour',
    { status: 200, description: 'the settings', schema: alertSettingsSchema },
    withBody(alertSettingsSchema),
  );
}

export type SegmentFilter = z.infer<typeof segmentFilterSchema>;
export type Segment = z.infer<typeof segmentSchema>;
export type SegmentMember = z.infer<typeof segmentMemberSchema>;
export type AlertSettings = z.infer<typeof alertSettingsSchema>;
