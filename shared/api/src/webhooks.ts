// The webhooks management API (/account/webhooks, an API key with account:manage): the bodies the
// webhooks service validates with and the answers it gives, for the OpenAPI document. Answer
// objects are open (other fields may be added later); every field listed is checked. Also the body
// of a company.visited delivery, which the webhooks service builds.
import { z } from 'zod';
import { deliverySchema } from './envelope.js';
import { companyRecordSchema } from './companies.js';
import { networkSchema, orNull, visitorLocationSchema } from './company-views.js';

export const WEBHOOK_EVENT_TYPES = [
  'enrollment.started',
  'enrollment.stopped',
  'visitor.identified',
  'company.visited',
  'segment.entered',
  'segment.digest',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The alerts: a member entering a segment, and a segment's daily digest. A Slack endpoint receives these only (and both by default). */
export const SEGMENT_EVENT_TYPES = ['segment.entered', 'segment.digest'] as const satisfies readonly WebhookEventType[];

/** webhook: signed Standard Webhooks POSTs of the JSON payloads; slack: a Slack incoming-webhook URL, sent Block Kit messages. */
export const WEBHOOK_ENDPOINT_KINDS = ['webhook', 'slack'] as const;
export type WebhookEndpointKind = (typeof WEBHOOK_ENDPOINT_KINDS)[number];

const url = z
  .string({ error: (i) => (i.input === undefined ? 'url is required' : 'url must be a string') })
  .trim()
  .min(1, { error: 'url is required' })
  .meta({
    description:
      'webhook: an absolute http(s) URL without credentials or fragment, whose host resolves only to public addresses; slack: a Slack incoming-webhook URL (https://hooks.slack.com/services/…)',
  });
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }), {
    error: (i) => (i.input === undefined ? 'events is required' : 'events must be an array'),
  })
  .min(1, { error: `subscribe to at least one event: ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  .meta({ description: 'the event types to receive (duplicates are dropped)' });
const unknownKeys = (fields: string) => ({
  error: (i: { code: string; keys?: string[] }) =>
    i.code === 'unrecognized_keys' ? `unknown field(s): ${(i.keys ?? []).join(', ')}; send ${fields}` : 'body must be a JSON object',
});

const kind = z
  .enum(WEBHOOK_ENDPOINT_KINDS, { error: `kind must be one of ${WEBHOOK_ENDPOINT_KINDS.join(', ')}` })
  .meta({ description: 'webhook (the default): signed JSON POSTs; slack: Block Kit messages to a Slack incoming webhook' });

/** POST /account/webhooks {url, events, kind?}: events may be left out of a Slack endpoint (both segment events then). */
export const webhookCreateSchema = z
  .strictObject(
    {
      url,
      events: events.optional().meta({ description: 'the event types to receive (duplicates are dropped); required but for kind slack' }),
      kind: kind.optional(),
    },
    unknownKeys('{url, events, kind?}'),
  )
  .superRefine((body, ctx) => {
    if (body.events === undefined && (body.kind ?? 'webhook') === 'webhook') ctx.addIssue({ code: 'custom', message: 'events is required', path: ['events'] });
  })
  .meta({ id: 'WebhookEndpointInput' });
/** PATCH /account/webhooks/{id} {url?, events?, enabled?}: at least one (the service checks that). */
export const webhookUpdateSchema = z
  .strictObject(
    {
      url: url.optional(),
      events: events.optional(),
      enabled: z
        .boolean({ error: 'enabled must be true or false' })
        .optional()
        .meta({ description: 'false pauses deliveries; true resumes them (and the pending ones, with a fresh retry window)' }),
    },
    unknownKeys('any of {url, events, enabled}'),
  )
  .meta({ id: 'WebhookEndpointChanges', description: 'any of the fields, at least one; a list replaces the old one' });

const id = z.uuid();
const at = z.iso.datetime();
const atOrNull = at.nullable();
const eventType = z.enum(WEBHOOK_EVENT_TYPES);
const secret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
  .meta({ description: 'the signing secret (Standard Webhooks, whsec_ and 32 random bytes in base64), shown only here' });

const endpointShape = {
  id,
  kind: z.enum(WEBHOOK_ENDPOINT_KINDS),
  url: z.string().meta({ description: "the URL; a Slack endpoint's is a secret and answered masked (its host and the last characters)" }),
  events: z.array(eventType),
  enabled: z.boolean(),
  disabledReason: z.enum(['failing', 'user', 'revoked']).nullable().meta({
    description:
      'failing: disabled after a day of failed attempts; user: disabled by a change; revoked: Slack answered 404 or 410 (the incoming webhook was removed); null while enabled',
  }),
  disabledAt: atOrNull,
  failingSince: atOrNull.meta({ description: 'the first failed attempt since the last success, while attempts are failing' }),
  createdAt: at,
  updatedAt: at,
};

export const webhookEndpointSchema = z.object(endpointShape).meta({ id: 'WebhookEndpoint' });
export const webhookEndpointCreatedSchema = z
  .object({ ...endpointShape, secret: secret.optional() })
  .meta({ id: 'WebhookEndpointCreated', description: 'the secret is shown here only (a Slack endpoint has none: Slack messages are not signed)' });
export const webhookSecretRotatedSchema = z
  .object({ ...endpointShape, secret, previousSecretExpiresAt: at.meta({ description: 'until then, deliveries are signed with the previous secret too' }) })
  .meta({ id: 'WebhookSecretRotated', description: 'the new secret is shown here only' });

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const webhookAttemptSchema = z
  .object({
    at,
    succeeded: z.boolean(),
    responseStatus: z.number().int().min(100).max(999).nullable().meta({ description: "the receiver's HTTP status; null when it did not answer" }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'why the attempt failed (the status it answered, a timeout, a refused connection or address, …); null when it succeeded' }),
    durationMs: z.number().int().min(0),
  })
  .meta({ id: 'WebhookAttempt' });
export const webhookDeliverySchema = z
  .object({
    id,
    effectId: id.meta({
      description:
        "the playbook effect delivered (for visitor.identified: the identification's id; for company.visited: the visit's; for segment.entered and segment.digest: the alert's eventId); the webhook-id header of every attempt",
    }),
    type: eventType,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    createdAt: at,
    nextAttemptAt: atOrNull.meta({ description: 'when the next attempt is due; null unless pending' }),
    finishedAt: atOrNull,
    attempts: z.array(webhookAttemptSchema).meta({ description: 'every attempt so far, oldest first' }),
  })
  .meta({ id: 'WebhookDelivery' });

/** The firmographics a company.visited delivery carries: the company record's fields but its domain and name. */
const firmographics = companyRecordSchema.omit({ domain: true, name: true }).shape;

/**
 * The body of a company.visited delivery (Standard Webhooks' {type, timestamp, data}), sent once per
 * company, site and window (a UTC day); its webhook-id is the visit's id, the same on every retry.
 */
export const companyVisitedPayloadSchema = deliverySchema(z.literal('company.visited'), "the company's first page view on the site in the window", {
  site_id: id,
  visitor_id: z.string().meta({ description: 'the visitor (24 hex) whose page view it was' }),
  company: z
    .strictObject({
      key: z.string().meta({ description: 'the company domain, or its name lower-cased when the data names no domain: GET /account/companies/{key}' }),
      name: z.string().nullable().meta({ description: "the company record's name, else the network data's; null when neither names it" }),
      domain: z.string().nullable(),
      ...firmographics,
    })
    .meta({ description: 'the company, with its firmographics when scheduled; without a company record for the domain every firmographic field is null' }),
  network: orNull(networkSchema).meta({ description: "the visitor's network; null when the address matched no network data" }),
  location: orNull(visitorLocationSchema).meta({ description: 'where the page view came from; null when unknown' }),
  window_start: at.meta({ description: 'the start of the window (UTC day) this is the first visit of' }),
}).meta({ id: 'CompanyVisitedPayload', description: 'a company.visited delivery: a named company visited a site for the first time in the window' });

export type CompanyVisitedPayload = z.infer<typeof companyVisitedPayloadSchema>;
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
export type WebhookEndpointCreated = z.infer<typeof webhookEndpointCreatedSchema>;
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
export type WebhookSecretRotated = z.infer<typeof webhookSecretRotatedSchema>;
