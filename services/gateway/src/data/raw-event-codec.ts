// The compact form of a raw event in Redis: five fields joined by the unit separator (0x1f):
// the event id as 22 base64url characters (its 16 bytes), the name, the email, the properties as
// JSON, and the time received as milliseconds in base 36. The account is in the key already.
// 0x1f cannot occur inside a field: names and emails are validated without control characters,
// and JSON writes a control character inside a string as an escape. The store's Lua reads the
// email as the third field to erase a person.
import type { InboundEvent } from '@glimpse/messaging';

export const FIELD_SEPARATOR = '\x1f';

export type StoredEvent = Omit<InboundEvent, 'accountId'>;

function uuidToBase64url(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}

function base64urlToUuid(value: string): string {
  const hex = Buffer.from(value, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function encodeRawEvent(event: StoredEvent): string {
  return [uuidToBase64url(event.eventId), event.event, event.email, JSON.stringify(event.properties), Date.parse(event.receivedAt).toString(36)].join(
    FIELD_SEPARATOR,
  );
}

/** Null for a value that is not one (never written by this codec). */
export function decodeRawEvent(value: string): StoredEvent | null {
  const fields = value.split(FIELD_SEPARATOR);
  if (fields.length !== 5) return null;
  const [id, event, email, properties, receivedAt] = fields as [string, string, string, string, string];
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const ms = parseInt(receivedAt, 36);
  if (!Number.isFinite(ms)) return null;
  try {
    return {
      eventId: base64urlToUuid(id),
      event,
      email,
      properties: JSON.parse(properties) as StoredEvent['properties'],
      receivedAt: new Date(ms).toISOString(),
    };
  } catch {
    return null;
  }
}
