// The bodies of the playbook and identification webhooks (enrollment.started, enrollment.stopped,
// visitor.identified; Standard Webhooks' {type, timestamp, data}), which the webhooks service
// builds, and every webhook's place in the OpenAPI document's webhooks section. The company.visited
// body is in webhooks.ts and the segment alerts' in alerts.ts, beside the records they carry.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { deliverySchema } from './envelope.js';
import { segmentDigestPayloadSchema, segmentEnteredPayloadSchema } from './alerts.js';
import { PERSON_FIELDS, visitorDetailsSchema, type PersonField } from './records.js';
import { WEBHOOK_EVENT_TYPES, companyVisitedPayloadSchema } from './webhooks.js';

const id = z.uuid();
const at = z.iso.datetime();

/** The body of an enrollment.started or enrollment.stopped delivery: who, which playbook, what and when (no event properties). */
export const enrollmentPayloadSchema = deliverySchema(z.enum(['enrollment.started', 'enrollment.stopped']), 'when the enrollment started or stopped', {
  effectId: id.meta({ description: 'the playbook effect: the webhook-id of every attempt' }),
  eventId: id.meta({ description: "the event that caused it; for a stop by a suppression or an erasure, that operation's id" }),
  playbookId: id,
  email: z.string().meta({ description: "the person's email; after an erasure, its one-way stand-in (erased: and 64 hex digits)" }),
  at,
  reason: z.enum(['suppressed', 'erased']).optional().meta({ description: 'only on a stop made by a suppression or an erasure' }),
}).meta({ id: 'EnrollmentPayload', description: 'an enrollment.started or enrollment.stopped delivery: a playbook started or stopped for a person' });
export type EnrollmentPayload = z.infer<typeof enrollmentPayloadSchema>;

const personMask = Object.fromEntries(PERSON_FIELDS.map((field) => [field, true])) as { [K in PersonField]: true };

/** The seven person fields of the visitor details, each left out when the person lacks it. */
export const personDetailsSchema = visitorDetailsSchema.pick(personMask).meta({
  id: 'PersonDetails',
  description: "the person's visitor-details fields enrichment knows (strings; a field the person lacks is left out)",
});
export type PersonDetails = z.infer<typeof personDetailsSchema>;

/** The body of a visitor.identified delivery: a visitor tied to a person, how and how surely, and the person's fields. */
export const visitorIdentifiedPayloadSchema = deliverySchema(z.literal('visitor.identified'), 'when the visitor was identified', {
  visitor_id: z.string().meta({ description: 'the visitor (24 hex)' }),
  site_id: id,
  method: z.enum(['identify', 'form', 'email_link']),
  confidence: z.number().min(0).max(1),
  verified: z.boolean().meta({ description: "a verified identification (the site's hash, an email link); false: a claim anyone with the site key could make" }),
  email: z.string(),
  details: personDetailsSchema.meta({ description: 'empty when enrichment knows nobody with the email' }),
}).meta({ id: 'VisitorIdentifiedPayload', description: 'a visitor.identified delivery: a visitor was tied to a person' });
export type VisitorIdentifiedPayload = z.infer<typeof visitorIdentifiedPayloadSchema>;

const signedHeaders = (webhookId: string) =>
  z.object({
    'webhook-id': z.uuid().meta({ description: webhookId }),
    'webhook-timestamp': z
      .string()
      .regex(/^[0-9]+$/)
      .meta({ description: 'Unix seconds of the attempt' }),
    'webhook-signature': z.string().meta({ description: "v1,<base64 HMAC-SHA256>; two, space-separated, during a secret rotation's grace" }),
  });

interface PayloadWebhook {
  type: (typeof WEBHOOK_EVENT_TYPES)[number];
  operationId: string;
  summary: string;
  /** What its webhook-id is, in the description. */
  id: string;
  /** The webhook-id header's description. */
  idHeader: string;
  schema: z.ZodType;
  /** A last sentence of the description. */
  more?: string;
}

const SEGMENT_ALERT = {
  id: 'the alert id',
  idHeader: "the alert's eventId: the same on every retry and on a repeat of the same alert",
  more: ' A Slack endpoint gets the same alert as a Block Kit message.',
};

const PAYLOAD_WEBHOOKS: PayloadWebhook[] = [
  {
    type: 'enrollment.started',
    operationId: 'webhooks.enrollmentStarted',
    summary: 'A playbook started for a person',
    id: 'the effect id',
    idHeader: 'the effect id: the same on every retry',
    schema: enrollmentPayloadSchema,
  },
  {
    type: 'enrollment.stopped',
    operationId: 'webhooks.enrollmentStopped',
    summary: 'A playbook stopped for a person',
    id: 'the effect id',
    idHeader: 'the effect id: the same on every retry',
    schema: enrollmentPayloadSchema,
  },
  {
    type: 'visitor.identified',
    operationId: 'webhooks.visitorIdentified',
    summary: 'A visitor tied to a person',
    id: "the identification's id",
    idHeader: "the identification's id: the same on every retry",
    schema: visitorIdentifiedPayloadSchema,
  },
  {
    type: 'company.visited',
    operationId: 'webhooks.companyVisited',
    summary: "A named company's first visit to a site in a window (a UTC day)",
    id: 'the visit id',
    idHeader: 'the visit id: the same on every retry',
    schema: companyVisitedPayloadSchema,
  },
  {
    type: 'segment.entered',
    operationId: 'webhooks.segmentEntered',
    summary: 'A visitor or company entered a segment (at most once per member in its alert window)',
    ...SEGMENT_ALERT,
    schema: segmentEnteredPayloadSchema,
  },
  {
    type: 'segment.digest',
    operationId: 'webhooks.segmentDigest',
    summary: "A segment's daily digest at the account's local hour: new members, members, top scores",
    ...SEGMENT_ALERT,
    schema: segmentDigestPayloadSchema,
  },
];

/** Every webhook as the document's webhooks: the event type, its signed headers and its JSON body. */
export function registerPayloadWebhooks(registry: OpenAPIRegistry): void {
  for (const w of PAYLOAD_WEBHOOKS) {
    registry.registerWebhook({
      method: 'post',
      path: w.type,
      operationId: w.operationId,
      tags: ['Webhooks'],
      summary: `${w.summary}, POSTed to the endpoints subscribed to ${w.type}`,
      description: `Signed per Standard Webhooks (webhook-id: ${w.id}, the same on every retry; dedupe on it). Answer 2xx within 10 s; anything else is retried.${w.more ?? ''}`,
      // No credential: the receiver checks the signature with the endpoint's secret.
      security: [],
      request: { headers: signedHeaders(w.idHeader), body: { required: true, content: { 'application/json': { schema: w.schema } } } },
      responses: { 200: { description: 'received (any 2xx)' } },
    });
  }
}
