// The bodies of POST /account/webhooks {url, events} and PATCH /account/webhooks/{id}
// {url?, events?, enabled?}.
import { z } from 'zod';
import { AppError } from '@glimpse/errors';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './effect-payload.js';

const url = z.string({ error: (i) => (i.input === undefined ? 'url is required' : 'url must be a string') }).trim().min(1, { error: 'url is required' });
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }), {
    error: (i) => (i.input === undefined ? 'events is required' : 'events must be an array'),
  })
  .min(1, { error: `subscribe to at least one event: ${WEBHOOK_EVENT_TYPES.join(', ')}` });
const unknownKeys = (fields: string) => ({
  error: (i: { code: string; keys?: string[] }) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys!.join(', ')}; send ${fields}` : 'body must be a JSON object'),
});

const createSchema = z.strictObject({ url, events }, unknownKeys('{url, events}'));
const updateSchema = z.strictObject(
  { url: url.optional(), events: events.optional(), enabled: z.boolean({ error: 'enabled must be true or false' }).optional() },
  unknownKeys('any of {url, events, enabled}'),
);

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return parsed.data;
}

export interface NewEndpoint {
  url: string;
  events: WebhookEventType[];
}

export interface EndpointChanges {
  url?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
}

export function parseNewEndpoint(body: unknown): NewEndpoint {
  const { url, events } = parse(createSchema, body);
  return { url, events: [...new Set(events)] };
}

export function parseEndpointChanges(body: unknown): EndpointChanges {
  const changes = parse(updateSchema, body);
  if (changes.url === undefined && changes.events === undefined && changes.enabled === undefined) {
    throw new AppError('invalid_request', 'nothing to change: send any of {url, events, enabled}');
  }
  return { ...changes, ...(changes.events ? { events: [...new Set(changes.events)] } : {}) };
}
