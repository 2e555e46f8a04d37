// webhook_endpoints: an account's subscriptions. The signing secrets are stored sealed
// (domain/secret-box: AES-256-GCM under WEBHOOKS_SECRET_KEY): this module writes and moves sealed
// values only; they are opened for signing (the dispatcher) and shown in clear only in the answers
// that create or rotate them.
import type { WebhookEndpointKind } from '@glimpse/api';
import type { Db } from '@glimpse/db/webhooks';
import type { WebhookEventType } from '../domain/effect-payload.js';
import type { EndpointStore, EndpointView, NewStoredEndpoint, StoredChanges } from '../domain/endpoint-store.js';
import { UnknownSecretKeyError, type SecretBox } from '../domain/secret-box.js';
import { findDeliveryPage } from './delivery-repository.js';

const VIEW = {
  id: true,
  kind: true,
  url: true,
  events: true,
  enabled: true,
  disabledReason: true,
  disabledAt: true,
  failingSince: true,
  createdAt: true,
  updatedAt: true,
} as const;

const asView = (row: Omit<EndpointView, 'events' | 'kind'> & { events: string[]; kind: string }): EndpointView => ({
  ...row,
  kind: row.kind as WebhookEndpointKind,
  events: row.events as WebhookEventType[],
});

export async function listEndpoints(db: Db, accountId: string): Promise<EndpointView[]> {
  const rows = await db.webhookEndpoint.findMany({ where: { accountId }, select: VIEW, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(asView);
}

export async function findEndpoint(db: Db, accountId: string, id: string): Promise<EndpointView | null> {
  const row = await db.webhookEndpoint.findFirst({ where: { id, accountId }, select: VIEW });
  return row ? asView(row) : null;
}

/** Inserts unless the account already has `max` endpoints (checked under a per-account lock); null then. `secret` is sealed for `id`. */
export async function insertEndpoint(db: Db, input: NewStoredEndpoint, max: number): Promise<EndpointView | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints'), hashtext(${input.accountId}))`;
    if ((await tx.webhookEndpoint.count({ where: { accountId: input.accountId } })) >= max) return null;
    return asView(await tx.webhookEndpoint.create({ data: input, select: VIEW }));
  });
}

/**
 * Applies the changes. Enabling clears the failure state and resumes the endpoint's pending
 * deliveries now, each with a fresh retry window; disabling by the user records it as such.
 */
export async function changeEndpoint(
  db: Db,
  accountId: string,
  id: string,
  changes: StoredChanges,
  retryWindowMs: number,
  now = new Date(),
): Promise<EndpointView | null> {
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
      await tx.webhookDelivery.updateMany({
        where: { endpointId: id, status: 'pending' },
        data: { nextAttemptAt: now, expiresAt: new Date(now.getTime() + retryWindowMs) },
      });
    }
    return asView(row);
  });
}

/** The kinds of the endpoints (webhook or slack) that still exist. */
export async function endpointKinds(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.webhookEndpoint.findMany({ where: { id: { in: ids } }, select: { id: true, kind: true } });
  return new Map(rows.map((r) => [r.id, r.kind]));
}

export async function deleteEndpoint(db: Db, accountId: string, id: string): Promise<boolean> {
  return (await db.webhookEndpoint.deleteMany({ where: { id, accountId } })).count > 0;
}

/** The new secret (sealed for the endpoint) signs from now on; the old one also signs until graceUntil. */
export async function rotateSecret(db: Db, accountId: string, id: string, secret: string, graceUntil: Date): Promise<EndpointView | null> {
  return db.$transaction(async (tx) => {
    const current = await tx.webhookEndpoint.findFirst({ where: { id, accountId }, select: { secret: true } });
    if (!current) return null;
    return asView(
      await tx.webhookEndpoint.update({ where: { id }, data: { secret, previousSecret: current.secret, previousSecretExpiresAt: graceUntil }, select: VIEW }),
    );
  });
}

/** A deleted account's endpoints; their deliveries and attempts go by cascade. Idempotent. */
export async function deleteAccountEndpoints(db: Db, accountId: string): Promise<number> {
  const { count } = await db.webhookEndpoint.deleteMany({ where: { accountId } });
  return count;
}

/**
 * Seals every stored secret that is not sealed under the current key: the clear `whsec_` secrets
 * of before encryption, and those sealed under a previous key (WEBHOOKS_SECRET_KEY_PREVIOUS). Run at
 * start, in id order, a batch at a time; each row is replaced only if it is still what was read
 * (replicas starting together, a rotation meanwhile), so it is safe to run anywhere, any number of
 * times. A secret under an unknown key is left as it is and counted (its deliveries wait, unsent).
 */
export async function sealStoredSecrets(
  db: Db,
  box: SecretBox,
  { batch = 200, stopped = () => false }: { batch?: number; stopped?: () => boolean } = {},
): Promise<{ sealed: number; unopenable: number }> {
  const current = `wsk1.${box.currentKeyId}.`;
  let after = '00000000-0000-0000-0000-000000000000';
  let [sealed, unopenable] = [0, 0];
  while (!stopped()) {
    const rows = await db.$queryRaw<{ id: string; secret: string; previous_secret: string | null }[]>`
      SELECT id, secret, previous_secret FROM webhook_endpoints
      WHERE id > ${after}::uuid AND (NOT starts_with(secret, ${current}) OR NOT starts_with(coalesce(previous_secret, ${current}), ${current}))
      ORDER BY id LIMIT ${batch}`;
    for (const row of rows) {
      let secret: string;
      let previous: string | null;
      try {
        const again = (stored: string) => (box.isCurrent(stored) ? stored : box.seal(row.id, box.open(row.id, stored)));
        [secret, previous] = [again(row.secret), row.previous_secret === null ? null : again(row.previous_secret)];
      } catch (err) {
        if (!(err instanceof UnknownSecretKeyError)) throw err;
        unopenable += 1;
        continue;
      }
      sealed += await db.$executeRaw`
        UPDATE webhook_endpoints SET secret = ${secret}, previous_secret = ${previous}
        WHERE id = ${row.id}::uuid AND secret = ${row.secret} AND previous_secret IS NOT DISTINCT FROM ${row.previous_secret}`;
    }
    if (rows.length < batch) break;
    after = rows[rows.length - 1]!.id;
  }
  return { sealed, unopenable };
}

/** The management use cases' store (domain/endpoint-store.ts) on Postgres. */
export function endpointStore(db: Db): EndpointStore {
  return {
    list: (accountId) => listEndpoints(db, accountId),
    find: (accountId, id) => findEndpoint(db, accountId, id),
    insert: (input, max) => insertEndpoint(db, input, max),
    change: (accountId, id, changes, retryWindowMs) => changeEndpoint(db, accountId, id, changes, retryWindowMs),
    remove: (accountId, id) => deleteEndpoint(db, accountId, id),
    rotateSecret: (accountId, id, secret, graceUntil) => rotateSecret(db, accountId, id, secret, graceUntil),
    deliveryPage: (endpointId, query) => findDeliveryPage(db, endpointId, query),
  };
}
