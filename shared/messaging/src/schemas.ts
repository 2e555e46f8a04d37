// The message schemas on the topics: what producers write and consumers validate.
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const EVENT_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export const propertyValue = z.union([z.string(), z.number().finite(), z.boolean()]);

export const inboundEventSchema = z.object({
  eventId: z.uuid(),
  accountId: z.uuid(),
  event: z.string().regex(EVENT_NAME_PATTERN),
  email: z.string().min(3).max(254),
  properties: z.record(z.string(), propertyValue),
  receivedAt: z.iso.datetime(),
});
export type InboundEvent = z.infer<typeof inboundEventSchema>;

/** Effects carry no event properties: only who, which playbook, and what happened. */
export const playbookEffectSchema = z.object({
  effectId: z.uuid(),
  eventId: z.uuid(),
  accountId: z.uuid(),
  playbookId: z.uuid(),
  email: z.string(),
  action: z.enum(['started', 'stopped']),
  at: z.iso.datetime(),
  /**
   * Absent for an event's effect. A stop made by a suppression or an erasure names its cause; its
   * eventId is then the id of that operation, and an erasure's email is the one-way hash it left.
   */
  cause: z.enum(['suppressed', 'erased']).optional(),
});
export type PlaybookEffectMessage = z.infer<typeof playbookEffectSchema>;

/**
 * The one-way stand-in for an erased person's email, the same in every service that keeps a trace
 * of the person (enrollments, effects, webhook deliveries): it never matches an email (no @).
 */
export function erasedEmail(accountId: string, email: string): string {
  return `sha256:${createHash('sha256').update(`${accountId}:${email}`).digest('hex')}`;
}

/**
 * An account's lifecycle on the `accounts` topic, keyed by the account id (compacted: the newest
 * event of each account stays). The identity part of the gateway owns accounts and publishes these
 * from its outbox; the other services keep or drop their own data by them. No name, nothing personal.
 */
export const accountEventSchema = z.object({
  type: z.enum(['account.created', 'account.deleted']),
  accountId: z.uuid(),
  at: z.iso.datetime(),
});
export type AccountEventMessage = z.infer<typeof accountEventSchema>;
