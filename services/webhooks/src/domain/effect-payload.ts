// What a playbook effect becomes on the wire: the event type endpoints subscribe to and the JSON
// body (Standard Webhooks' {type, timestamp, data}). Only who, which playbook, what and when: the
// effect carries no event properties, and neither does this.
import type { EnrollmentPayload } from '@glimpse/api';
import type { PlaybookEffectMessage } from '@glimpse/messaging';

// The event types are part of the public API, so they are defined with its schemas.
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@glimpse/api';

/** An enrollment delivery's body: @glimpse/api's EnrollmentPayload (the reason only on a stop made by a suppression or an erasure). */
export type WebhookPayload = EnrollmentPayload;

export function eventTypeOf(effect: Pick<PlaybookEffectMessage, 'action'>): EnrollmentPayload['type'] {
  return effect.action === 'started' ? 'enrollment.started' : 'enrollment.stopped';
}

export function payloadOf(effect: PlaybookEffectMessage): WebhookPayload {
  return {
    type: eventTypeOf(effect),
    timestamp: effect.at,
    data: {
      effectId: effect.effectId,
      eventId: effect.eventId,
      playbookId: effect.playbookId,
      email: effect.email,
      at: effect.at,
      ...(effect.cause ? { reason: effect.cause } : {}),
    },
  };
}
