// webhook_deliveries and webhook_attempts: the schedule the dispatcher claims from (claims.ts),
// and what each attempt met. Recording an attempt ends the delivery's lease (leased_until).
import { createHash } from 'node:crypto';
import { newestFirstPage } from '@glimpse/db';
import type { Db } from '@glimpse/db/webhooks';
import { ERASED_EMAIL_PATTERN } from '@glimpse/messaging';
import type { WebhookEventType } from '../domain/effect-payload.js';
import type { DeliveryItem } from '../domain/endpoint-store.js';

export function personKeyOf(accountId: string, email: string): string {
  return createHash('sha256').update(`${accountId}:${email}`).digest('hex');
}

/** The ordering key of a company's deliveries for one site (prefixed, so never a person's key). */
export function companyKeyOf(accountId: string, siteId: string, company: string): string {
  return createHash('sha256').update(`company:${accountId}:${siteId}:${company}`).digest('hex');
}

/**
 * One delivery per enabled endpoint of the account subscribed to the type, in one statement; a
 * redelivered effect adds nothing (unique endpoint and effect). An endpoint gets only what was
 * published once it existed (`publishedAt`, the broker's append time of the message): a consumer
 * group that reads a partition from its start (a new group, or a partition that moved before its
 * first commit) schedules nothing for endpoints created later. Returns how many were added.
 */
export async function enqueueEffect(
  db: Db,
  input: { accountId: string; effectId: string; personKey: string; type: WebhookEventType; payload: string; publishedAt: Date },
  retryWindowMs: number,
): Promise<number> {
  const { accountId, effectId, personKey, type, payload, publishedAt } = input;
  return db.$executeRaw`
    INSERT INTO webhook_deliveries (id, endpoint_id, effect_id, person_key, type, payload, next_attempt_at, expires_at)
    SELECT gen_random_uuid(), e.id, ${effectId}::uuid, ${personKey}, ${type}, ${payload}, now(), now() + ${retryWindowMs} * interval '1 millisecond'
    FROM webhook_endpoints e
    WHERE e.account_id = ${accountId}::uuid AND e.enabled AND ${type} = ANY(e.events) AND e.created_at <= ${publishedAt}
    ON CONFLICT (endpoint_id, effect_id) DO NOTHING`;
}

export interface EffectToEnqueue {
  accountId: string;
  effectId: string;
  personKey: string;
  type: WebhookEventType;
  payload: string;
  publishedAt: Date;
}

/**
 * enqueueEffect for a chunk of effects in one statement (their rows passed as one JSON array, in
 * order, so one person's keep their order). Returns how many deliveries were added.
 */
export async function enqueueEffects(db: Db, effects: EffectToEnqueue[], retryWindowMs: number): Promise<number> {
  if (effects.length === 0) return 0;
  const rows = JSON.stringify(
    effects.map((e, ord) => ({
      ord,
      account_id: e.accountId,
      effect_id: e.effectId,
      person_key: e.personKey,
      type: e.type,
      payload: e.payload,
      published_at: e.publishedAt,
    })),
  );
  return db.$executeRaw`
    INSERT INTO webhook_deliveries (id, endpoint_id, effect_id, person_key, type, payload, next_attempt_at, expires_at)
    SELECT gen_random_uuid(), e.id, x.effect_id, x.person_key, x.type, x.payload, now(), now() + ${retryWindowMs} * interval '1 millisecond'
    FROM json_to_recordset(${rows}::json) AS x(ord int, account_id uuid, effect_id uuid, person_key text, type text, payload text, published_at timestamptz)
    JOIN webhook_endpoints e ON e.account_id = x.account_id AND e.enabled AND x.type = ANY(e.events) AND e.created_at <= x.published_at
    ORDER BY x.ord, e.id
    ON CONFLICT (endpoint_id, effect_id) DO NOTHING`;
}

/** Those of the accounts with an enabled endpoint subscribed to the type (one query for a chunk of messages). */
export async function subscribedAccounts(db: Db, accountIds: string[], type: WebhookEventType): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  // The ids as given (not as Postgres spells a uuid back), so the caller finds its own strings.
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT a.id FROM unnest(${accountIds}::text[]) AS a(id)
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.account_id = a.id::uuid AND e.enabled AND ${type} = ANY(e.events))`;
  return new Set(rows.map((r) => r.id));
}

/** Whether an enabled endpoint of the account subscribes to the type (before asking anyone for a payload). */
export async function hasSubscribers(db: Db, accountId: string, type: WebhookEventType): Promise<boolean> {
  const rows = await db.$queryRaw<unknown[]>`
    SELECT 1 FROM webhook_endpoints WHERE account_id = ${accountId}::uuid AND enabled AND ${type} = ANY(events) LIMIT 1`;
  return rows.length > 0;
}

/** A delivery claimed for an attempt (claims.ts), leased until the attempt is recorded. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  accountId: string;
  effectId: string;
  payload: string;
  attempts: number;
  expiresAt: Date;
  url: string;
  /** The current signing secret, and the previous one during a rotation's grace, both sealed (domain/secret-box). */
  sealedSecrets: string[];
}

export interface AttemptResult {
  at: Date;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  succeeded: boolean;
}

export interface FailurePolicy {
  /** The next attempt's time after this many failed attempts, or null to give up. */
  nextAttempt(failedAttempts: number, expiresAt: Date): Date | null;
  /** Whether an endpoint failing since then is to be disabled now. */
  disable(failingSince: Date): boolean;
}

/** What a failed attempt says beyond its result (a Slack endpoint's answers). */
export interface FailureHints {
  /** The receiver asked for no attempt before this (a 429's Retry-After). */
  notBefore?: Date;
  /** The target is gone for good (Slack's 404 or 410): the endpoint is disabled now, as "revoked". */
  revoked?: boolean;
}

/**
 * Records the attempt and moves the delivery and its endpoint on. Returns what happened to them.
 * A revoked endpoint is disabled at once; its pending deliveries, this one too, wait (paused) for
 * it to be re-enabled, and no other endpoint's are touched.
 */
export async function recordAttempt(
  db: Db,
  delivery: ClaimedDelivery,
  result: AttemptResult,
  policy: FailurePolicy,
  hints: FailureHints = {},
): Promise<{ delivery: 'delivered' | 'retrying' | 'failed'; endpointDisabled: boolean; revoked?: boolean }> {
  const attempts = delivery.attempts + 1;
  if (result.succeeded) {
    // The common case in one statement (one round trip, atomic without a transaction): the attempt,
    // the delivery delivered and its lease ended, the endpoint no longer failing.
    await db.$executeRaw`
      WITH attempt AS (
        INSERT INTO webhook_attempts (id, delivery_id, at, duration_ms, response_status, error, succeeded)
        VALUES (gen_random_uuid(), ${delivery.id}::uuid, ${result.at}, ${result.durationMs}, ${result.responseStatus}, ${result.error}, true)
      ), delivered AS (
        UPDATE webhook_deliveries SET status = 'delivered', attempts = ${attempts}, finished_at = ${result.at}, leased_until = NULL WHERE id = ${delivery.id}::uuid
      )
      UPDATE webhook_endpoints SET failing_since = NULL, updated_at = now() WHERE id = ${delivery.endpointId}::uuid AND failing_since IS NOT NULL`;
    return { delivery: 'delivered', endpointDisabled: false };
  }
  return db.$transaction(async (tx) => {
    const { at, durationMs, responseStatus, error } = result;
    await tx.webhookAttempt.create({ data: { deliveryId: delivery.id, at, durationMs, responseStatus, error, succeeded: false } });
    const next = laterOf(policy.nextAttempt(attempts, delivery.expiresAt), hints.notBefore, delivery.expiresAt);
    await tx.webhookDelivery.update({
      where: { id: delivery.id },
      data: next ? { attempts, nextAttemptAt: next, leasedUntil: null } : { attempts, status: 'failed', finishedAt: result.at, leasedUntil: null },
    });
    const [endpoint] = await tx.$queryRaw<{ failing_since: Date | null; enabled: boolean }[]>`
      SELECT failing_since, enabled FROM webhook_endpoints WHERE id = ${delivery.endpointId}::uuid FOR UPDATE`;
    let endpointDisabled = false;
    if (endpoint) {
      const failingSince = endpoint.failing_since ?? result.at;
      const revoked = endpoint.enabled && hints.revoked === true;
      endpointDisabled = revoked || (endpoint.enabled && policy.disable(failingSince));
      await tx.webhookEndpoint.update({
        where: { id: delivery.endpointId },
        data: { failingSince, ...(endpointDisabled ? { enabled: false, disabledReason: revoked ? 'revoked' : 'failing', disabledAt: result.at } : {}) },
      });
      if (revoked) return { delivery: next ? 'retrying' : 'failed', endpointDisabled, revoked };
    }
    return { delivery: next ? 'retrying' : 'failed', endpointDisabled };
  });
}

/** The policy's next attempt, moved to `notBefore` when that is later; null (give up) past the delivery's window. */
function laterOf(next: Date | null, notBefore: Date | undefined, expiresAt: Date): Date | null {
  if (next === null || notBefore === undefined || notBefore.getTime() <= next.getTime()) return next;
  return notBefore.getTime() > expiresAt.getTime() ? null : notBefore;
}

/** An endpoint's deliveries, newest first, each with its attempts in order. */
export async function findDeliveryPage(
  db: Db,
  endpointId: string,
  { limit, after, status }: { limit: number; after: { at: Date; id: string } | null; status?: string },
): Promise<DeliveryItem[]> {
  const page = newestFirstPage('createdAt', { limit, after });
  const rows = await db.webhookDelivery.findMany({
    ...page,
    where: { endpointId, ...(status ? { status } : {}), ...page.where },
    select: {
      id: true,
      effectId: true,
      type: true,
      status: true,
      createdAt: true,
      nextAttemptAt: true,
      finishedAt: true,
      attemptRows: { select: { at: true, succeeded: true, responseStatus: true, error: true, durationMs: true }, orderBy: { at: 'asc' } },
    },
  });
  return rows.map(({ attemptRows, ...r }) => ({ ...r, nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt : null, attempts: attemptRows }));
}

/** Deletes deliveries (and their attempts) older than the retention, a batch at a time. */
export async function purgeOldDeliveries(db: Db, retentionMs: number, batch = 1000): Promise<number> {
  return db.$executeRaw`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries WHERE created_at < now() - ${retentionMs} * interval '1 millisecond' LIMIT ${batch})`;
}

/**
 * An erased person: in the payloads of the account's deliveries (sent, pending or given up) their
 * email becomes `replacement`, the keyed stand-in the playbook service put in its enrollments and
 * effects (it holds the key; the gateway passes the value on), and a visitor.identified delivery
 * naming them (as the identified email or as the person's own) loses the person's details too.
 * Their person_key (an unkeyed hash of account and email, which would confirm a guessed email)
 * becomes the key of the stand-in, so their pending deliveries stay in order with the erasure's
 * own stops, which name the stand-in. A pending delivery then goes out so. Idempotent; returns
 * the deliveries changed.
 */
export async function erasePersonFromDeliveries(db: Db, accountId: string, email: string, replacement: string): Promise<number> {
  if (!ERASED_EMAIL_PATTERN.test(replacement)) throw new Error('not an erased email stand-in');
  // Payloads are JSON written by JSON.stringify: the email appears as its JSON string.
  const [from, to] = [JSON.stringify(email), JSON.stringify(replacement)];
  const [oldKey, newKey] = [personKeyOf(accountId, email), personKeyOf(accountId, replacement)];
  const identified: WebhookEventType = 'visitor.identified';
  return db.$executeRaw`
    UPDATE webhook_deliveries d SET payload = replace(
      CASE WHEN d.type = ${identified} AND strpos(d.payload, ${from}) > 0 THEN jsonb_set(d.payload::jsonb, '{data,details}', '{}'::jsonb)::text ELSE d.payload END,
      ${from}, ${to}),
      person_key = CASE WHEN d.person_key = ${oldKey} THEN ${newKey} ELSE d.person_key END
    FROM webhook_endpoints e
    WHERE d.endpoint_id = e.id AND e.account_id = ${accountId}::uuid AND (strpos(d.payload, ${from}) > 0 OR d.person_key = ${oldKey})`;
}
