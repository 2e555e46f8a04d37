// The bodies of POST /account/webhooks {url, events, kind?} and PATCH /account/webhooks/{id}
// {url?, events?, enabled?}, validated with the schemas the OpenAPI document is made of (@glimpse/api).
// A Slack endpoint's events default to the segment alerts (the only ones it can be sent).
import type { z } from 'zod';
import { SEGMENT_EVENT_TYPES, webhookCreateSchema, webhookUpdateSchema, type WebhookEndpointKind } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { WebhookEventType } from './effect-payload.js';

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return parsed.data;
}

export interface NewEndpoint {
  kind: WebhookEndpointKind;
  url: string;
  events: WebhookEventType[];
}

export interface EndpointChanges {
  url?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
}

export function parseNewEndpoint(body: unknown): NewEndpoint {
  const { url, events, kind = 'webhook' } = parse(webhookCreateSchema, body);
  return { kind, url, events: [...new Set(events ?? SEGMENT_EVENT_TYPES)] };
}

export function parseEndpointChanges(body: unknown): EndpointChanges {
  const changes = parse(webhookUpdateSchema, body);
  if (changes.url === undefined && changes.events === undefined && changes.enabled === undefined) {
    throw new AppError('invalid_request', 'nothing to change: send any of {url, events, enabled}');
  }
  return { ...changes, ...(changes.events ? { events: [...new Set(changes.events)] } : {}) };
}
