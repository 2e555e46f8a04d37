// The bodies of the playbook and identification webhooks (enrollment.started, enrollment.stopped,
// visitor.identified; Standard Webhooks' {type, timestamp, data}), which the webhooks service
// builds, and every JSON webhook's place in the OpenAPI document's webhooks section. company.visited
// is in webhooks.ts and the segment alerts in alerts.ts, beside the records they carry.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { registerSegmentAlertWebhooks } from './alerts.js';
import { PERSON_FIELDS, visitorDetailsSchema, type PersonField } from './records.js';
import { companyVisitedPayloadSchema } from './webhooks.js';

const id = z.uuid();
const at = z.iso.datetime();

/** The body of an enrollment.started or enrollment.stopped delivery: who, which playbook, what and when (no event properties). */
export const enrollmentPayloadSchema = z
  .strictObject({
    type: z.enum(['enrollment.started', 'enrollment.stopped']),
    timestamp: at.meta({ description: 'when the enrollment started or stopped' }),
    data: z.strictObject({
      effectId: id.meta({ description: 'the playbook effect: the webhook-id of every attempt' }),
      eventId: id.meta({ description: "the event that caused it; for a stop by a suppression or an erasure, that operation's id" }),
      playbookId: id,
      email: z.string().meta({ description: "the person's email; after an erasure, its one-way stand-in (erased: and 64 hex digits)" }),
      at,
      reason: z.enum(['suppressed', 'erased']).optional().meta({ description: 'only on a stop made by a suppression or an erasure' }),
    }),
  })
  .meta({ id: 'EnrollmentPayload', description: 'an enrollment.started or enrollment.stopped delivery: a playbook started or stopped for a person' });
export type EnrollmentPayload = z.infer<typeof enrollmentPayloadSchema>;

const personMask = Object.fromEntries(PERSON_FIELDS.map((field) => [field, true])) as { [K in PersonField]: true };

/** The seven person fields of the visitor details, each left out when the person lacks it. */
export const personDetailsSchema = visitorDetailsSchema.pick(personMask).meta({
  id: 'PersonDetails',
  description: "the person's visitor-details fields enrichment knows (strings; a field the person lacks is left out)",
});
export type PersonDetails = z.infer<typeof personDetailsSchema>;

/** The body of a visitor.identified delivery: a visitor tied to a person, how and how surely, and the person's fields. */
export const visitorIdentifiedPayloadSchema = z
  .strictObject({
    type: z.literal('visitor.identified'),
    timestamp: at.meta({ description: 'when the visitor was identified' }),
    data: z.strictObject({
      visitor_id: z.string().meta({ description: 'the visitor (24 hex)' }),
      site_id: id,
      method: z.enum(['identify', 'form', 'email_link']),
      confidence: z.number().min(0).max(1),
      verified: z
        .boolean()
        .meta({ description: "a verified identification (the site's hash, an email link); false: a claim anyone with the site key could make" }),
      email: z.string(),
      details: personDetailsSchema.meta({ description: 'empty when enrichment knows nobody with the email' }),
    }),
  })
  .meta({ id: 'VisitorIdentifiedPayload', description: 'a visitor.identified delivery: a visitor was tied to a person' });
export type VisitorIdentifiedPayload = z.infer<typeof visitorIdentifiedPayloadSchema>;

const signedHeaders = (webhookId: string) =>
  z.object({
    'webhook-id': z.uuid().meta({ description: `${webhookId}: the same on every retry` }),
    'webhook-timestamp': z
      .string()
      .regex(/^[0-9]+$/)
      .meta({ description: 'Unix seconds of the attempt' }),
    'webhook-signature': z.string().meta({ description: "v1,<base64 HMAC-SHA256>; two, space-separated, during a secret rotation's grace" }),
  });

const PAYLOAD_WEBHOOKS = [
  ['enrollment.started', 'webhooks.enrollmentStarted', 'A playbook started for a person', 'the effect id', enrollmentPayloadSchema],
  ['enrollment.stopped', 'webhooks.enrollmentStopped', 'A playbook stopped for a person', 'the effect id', enrollmentPayloadSchema],
  ['visitor.identified', 'webhooks.visitorIdentified', 'A visitor tied to a person', "the identification's id", visitorIdentifiedPayloadSchema],
  [
    'company.visited',
    'webhooks.companyVisited',
    "A named company's first visit to a site in a window (a UTC day)",
    'the visit id',
    companyVisitedPayloadSchema,
  ],
] as const;

/** Every JSON webhook as the document's webhooks: the event type, its signed headers and its body. */
export function registerPayloadWebhooks(registry: OpenAPIRegistry): void {
  for (const [path, operationId, summary, webhookId, schema] of PAYLOAD_WEBHOOKS) {
    registry.registerWebhook({
      method: 'post',
      path,
      operationId,
      tags: ['Webhooks'],
      summary: `${summary}, POSTed to the endpoints subscribed to ${path}`,
      description: `Signed per Standard Webhooks (webhook-id: ${webhookId}, the same on every retry; dedupe on it). Answer 2xx within 10 s; anything else is retried.`,
      // No credential: the receiver checks the signature with the endpoint's secret.
      security: [],
      request: { headers: signedHeaders(webhookId), body: { required: true, content: { 'application/json': { schema } } } },
      responses: { 200: { description: 'received (any 2xx)' } },
    });
  }
  registerSegmentAlertWebhooks(registry);
}
