// webhook_endpoints: an account's subscriptions. The secret leaves this module only for signing
// (delivery-repository) and in the answers that create or rotate it.
import type { Db } from '@glimpse/db';
import type { WebhookEventType } from '../domain/effect-payload.js';

export interface EndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  /** "failing" (disabled after a day of failed attempts) or "user"; null while enabled. */
  disabledReason: string | null;
  disabledAt: Date | null;
  /** The first failed attempt since the last success, while attempts are failing. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const VIEW = { id: true, url: true, events: true, enabled: true, disabledReason: true, disabledAt: true, failingSince: true, createdAt: true, updatedAt: true } as const;

const asView = (row: Omit<EndpointView, 'events'> & { events: string[] }): EndpointView => ({ ...row, events: row.events as WebhookEventType[] });

export async function listEndpoints(db: Db, accountId: string): Promise<EndpointView[]> {
  const rows = await db.webhookEndpoint.findMany({ where: { accountId }, select: VIEW, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(asView);
}

export async function findEndpoint(db: Db, accountId: string, id: string): Promise<EndpointView | null> {
  const row = await db.webhookEndpoint.findFirst({ where: { id, accountId }, select: VIEW });
  return row ? asView(row) : null;
}

/** Inserts unless the account already has `max` endpoints (checked under a per-account lock); null then. */
export async function insertEndpoint(db: Db, input: { accountId: string; url: string; events: WebhookEventType[]; secret: string }, max: number): Promise<EndpointView | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints'), hashtext(${input.accountId}))`;
    if ((await tx.webhookEndpoint.count({ where: { accountId: input.accountId } })) >= max) return null;
    return asView(await tx.webhookEndpoint.create({ data: input, select: VIEW }));
  });
}

export interface StoredChanges {
  url?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
}

/**
 * Applies the changes. Enabling clears the failure state and resumes the endpoint's pending
 * deliveries now, each with a fresh retry window; disabling by the user records it as such.
 */
export async function changeEndpoint(db: Db, accountId: string, id: string, changes: StoredChanges, retryWindowMs: number, now = new Date()): Promise<EndpointView | null> {
  return db.$transaction(async (tx) => {
    const current = await tx.webhookEndpoint.findFirst({ where: { id, accountId }, select: { enabled: true } });
    if (!current) return null;
    const enabling = changes.enabled === true && !current.enabled;
    const disabling = changes.enabled === false && current.enabled;
    const row = await tx.webhookEndpoint.update({
      where: { id },
      data: {
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.events !== undefined ? { events: changes.events } : {}),
        ...(enabling ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null } : {}),
        ...(disabling ? { enabled: false, disabledReason: 'user', disabledAt: now } : {}),
      },
      select: VIEW,
    });
    if (enabling) {
      await tx.webhookDelivery.updateMany({ where: { endpointId: id, status: 'pending' }, data: { nextAttemptAt: now, expiresAt: new Date(now.getTime() + retryWindowMs) } });
    }
    return asView(row);
  });
}

export async function deleteEndpoint(db: Db, accountId: string, id: string): Promise<boolean> {
  return (await db.webhookEndpoint.deleteMany({ where: { id, accountId } })).count > 0;
}

/** The new secret signs from now on; the old one also signs until graceUntil. */
export async function rotateSecret(db: Db, accountId: string, id: string, secret: string, graceUntil: Date): Promise<EndpointView | null> {
  return db.$transaction(async (tx) => {
    const current = await tx.webhookEndpoint.findFirst({ where: { id, accountId }, select: { secret: true } });
    if (!current) return null;
    return asView(await tx.webhookEndpoint.update({ where: { id }, data: { secret, previousSecret: current.secret, previousSecretExpiresAt: graceUntil }, select: VIEW }));
  });
}

/** A deleted account's endpoints; their deliveries and attempts go by cascade. Idempotent. */
export async function deleteAccountEndpoints(db: Db, accountId: string): Promise<number> {
  const { count } = await db.webhookEndpoint.deleteMany({ where: { accountId } });
  return count;
}
