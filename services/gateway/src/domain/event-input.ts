// The rules for a POST /events body (api.md §4.3, §8): what is accepted and the message for what is
// not. The schema lives in @glimpse/api, which generates the OpenAPI document from it.
//
// Nearly every event is valid, so a valid one is recognised by hand first (a few property reads
// and two regular expressions instead of a schema parse: the same answer, a test holds the two
// together); anything it does not recognise goes through the schema, which also words every refusal.
import { eventInputSchema, type EventInput } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import { normalizeEmail } from '@glimpse/validation';

export type { EventInput };

const PROPERTY_NAME_MAX = 128;

/** A plain object as JSON.parse makes them (not an array, not null). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The properties as the schema outputs them (a copy), or null when they need the schema. */
function plainProperties(value: Record<string, unknown>): Record<string, string | number | boolean> | null {
  const out: Record<string, string | number | boolean> = {};
  for (const name of Object.keys(value)) {
    const v = value[name];
    if (name.length === 0 || name.length > PROPERTY_NAME_MAX || name === '__proto__') return null;
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[name] = v;
    else return null;
  }
  return out;
}

/** The schema's output for a body it would accept as it is, or null: ask the schema. */
export function plainEventInput(body: unknown): EventInput | null {
  if (!isRecord(body)) return null;
  let keys = 0;
  for (const key in body) {
    if (key !== 'event' && key !== 'email' && key !== 'properties') return null;
    keys += 1;
  }
  const { event, email, properties } = body;
  if (typeof event !== 'string' || !EVENT_NAME_PATTERN.test(event)) return null;
  const normalized = normalizeEmail(email);
  if (normalized === null) return null;
  if (properties === undefined) return keys === 2 ? { event, email: normalized } : null;
  if (!isRecord(properties)) return null;
  const copy = plainProperties(properties);
  return copy && { event, email: normalized, properties: copy };
}

export function parseEventInput(body: unknown): EventInput {
  const plain = plainEventInput(body);
  if (plain) return plain;
  const result = eventInputSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 1 ? ` (${issue.path.join('.')})` : '';
  throw new AppError('invalid_request', `${issue.message}${where}`);
}
