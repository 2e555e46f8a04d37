// The bodies of POST /account/webhooks {url, events} and PATCH /account/webhooks/{id}
// {url?, events?, enabled?}, validated with the schemas the OpenAPI document is made of (@glimpse/api).
import type { z } from 'zod';
import { webhookCreateSchema, webhookUpdateSchema } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { WebhookEventType } from './effect-payload.js';

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
  const { url, events } = parse(webhookCreateSchema, body);
  return { url, events: [...new Set(events)] };
}

export function parseEndpointChanges(body: unknown): EndpointChanges {
  const changes = parse(webhookUpdateSchema, body);
  if (changes.url === undefined && changes.events === undefined && changes.enabled === undefined) {
    throw new AppError('invalid_request', 'nothing to change: send any of {url, events, enabled}');
  }
  return { ...changes, ...(changes.events ? { events: [...new Set(changes.events)] } : {}) };
}
