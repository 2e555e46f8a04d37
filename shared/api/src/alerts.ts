// The bodies of the segment alerts' webhooks, segment.entered and segment.digest, which the webhooks
// service builds from what the visitors service publishes on visitors.segments (Standard Webhooks'
// {type, timestamp, data}); webhook-payloads.ts gives them their place in the OpenAPI document. A
// Slack endpoint receives the same alerts as Block Kit messages instead.
import { z } from 'zod';
import { deliverySchema } from './envelope.js';

const id = z.uuid();
const at = z.iso.datetime();

const alertReasonSchema = z.strictObject({
  reason: z.string().meta({ description: 'what was seen, e.g. "Visited /pricing* (page rule)", "3 sessions"' }),
  points: z.number().meta({ description: "the reason's points now (decayed); a member's reasons add up to its score" }),
  at: at.meta({ description: 'when it last happened' }),
});

/** A segment's member as an alert shows it. */
export const alertMemberSchema = z
  .strictObject({
    kind: z.enum(['visitor', 'company']),
    key: z.string().meta({ description: 'the visitor id, or the company key (its domain, else its name lower-cased): GET /account/companies/{key}' }),
    name: z.string().nullable().meta({ description: "the company's name, or the visitor's company's" }),
    domain: z.string().nullable(),
    email: z.string().nullable().meta({ description: "an identified visitor's email; null for a company or an anonymous visitor" }),
    score: z.number().min(0).max(100).meta({ description: 'the intent score, 0 to 100, when the alert was made' }),
    reasons: z.array(alertReasonSchema).meta({ description: 'its top reasons, best first' }),
    location: z
      .strictObject({ country: z.string().nullable(), region: z.string().nullable(), city: z.string().nullable(), time_zone: z.string().nullable() })
      .nullable(),
    last_pages: z
      .array(z.strictObject({ path: z.string(), title: z.string().nullable(), at }))
      .meta({ description: 'the pages it read last, newest first (at most 5)' }),
    visitors: z.number().int().min(0).meta({ description: "a company's visitors; 1 for a visitor" }),
  })
  .meta({ id: 'SegmentAlertMember' });
export type AlertMember = z.infer<typeof alertMemberSchema>;
/** A member as the services and their messages hold it: the same fields, its last pages as lastPages. */
export type AlertMemberFields = Omit<AlertMember, 'last_pages'> & { lastPages: AlertMember['last_pages'] };

/** A member on the wire (an alert's, or the segment members list's): its public fields only, in the API's snake_case. */
export function alertMemberOf(m: AlertMemberFields): AlertMember {
  return {
    kind: m.kind,
    key: m.key,
    name: m.name,
    domain: m.domain,
    email: m.email,
    score: m.score,
    reasons: m.reasons.map(({ reason, points, at }) => ({ reason, points, at })),
    location: m.location,
    last_pages: m.lastPages.map(({ path, title, at }) => ({ path, title, at })),
    visitors: m.visitors,
  };
}

const segmentSchema = z.strictObject({
  id,
  name: z.string(),
  kind: z.enum(['visitors', 'companies']).meta({ description: 'what the segment holds' }),
});

/** The body of a segment.entered delivery: once per member and segment in the segment's alert window; its webhook-id is the entry's eventId. */
export const segmentEnteredPayloadSchema = deliverySchema(z.literal('segment.entered'), 'when the member entered the segment', {
  segment: segmentSchema,
  window_start: at.meta({ description: "the start of the alert window this entry is the member's first of" }),
  member: alertMemberSchema,
}).meta({ id: 'SegmentEnteredPayload', description: 'a segment.entered delivery: a visitor or company entered a segment' });
export type SegmentEnteredPayload = z.infer<typeof segmentEnteredPayloadSchema>;

/** The body of a segment.digest delivery: once per segment and account-local day, at the account's digest hour. */
export const segmentDigestPayloadSchema = deliverySchema(z.literal('segment.digest'), 'when the digest was made', {
  segment: segmentSchema,
  day: z.iso.date().meta({ description: 'the account-local day the digest is of' }),
  new_members: z.number().int().min(0).meta({ description: 'members who entered since the previous digest' }),
  members: z.number().int().min(0).meta({ description: 'members now' }),
  top: z.array(alertMemberSchema).meta({ description: 'the highest scores now, best first (at most 10)' }),
}).meta({ id: 'SegmentDigestPayload', description: "a segment.digest delivery: a segment's day" });
export type SegmentDigestPayload = z.infer<typeof segmentDigestPayloadSchema>;

export type SegmentAlertPayload = SegmentEnteredPayload | SegmentDigestPayload;
