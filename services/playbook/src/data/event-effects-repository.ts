// Applies one inbound event in one Postgres transaction: dedupe by event id, catalog upsert,
// enrollment stops and starts, and the effect rows (an outbox published after commit).
import { randomUUID } from 'node:crypto';
import type { Db } from '@glimpse/db';
import type { InboundEvent } from '@glimpse/messaging';
import { decideEffects } from '../domain/decide-effects.js';

export interface EffectRecord {
  id: string;
  eventId: string;
  accountId: string;
  playbookId: string;
  email: string;
  action: string;
  at: Date;
}

export type ApplyOutcome =
  | { kind: 'applied'; effects: EffectRecord[] }
  | { kind: 'duplicate'; unpublished: EffectRecord[] }
  | { kind: 'unknown_account' };

export interface AccountCheck {
  exists(accountId: string): Promise<boolean>;
}

/** Accounts are rarely deleted: a positive answer is kept for a minute to save a query per event. */
export function cachedAccountCheck(db: Db, ttlMs = 60_000): AccountCheck {
  const known = new Map<string, number>();
  return {
    async exists(accountId) {
      const now = Date.now();
      if ((known.get(accountId) ?? 0) > now) return true;
      const found = (await db.account.count({ where: { id: accountId } })) > 0;
      if (found) {
        if (known.size > 100_000) known.clear();
        known.set(accountId, now + ttlMs);
      }
      return found;
    },
  };
}

export async function applyEventInTransaction(db: Db, event: InboundEvent, accounts: AccountCheck = cachedAccountCheck(db, 0), now = new Date()): Promise<ApplyOutcome> {
  const { eventId, accountId, email, event: name } = event;
  const receivedAt = new Date(event.receivedAt);
  // An event of an unknown (deleted) account changes nothing; a redelivery is skipped the same way.
  if (!(await accounts.exists(accountId))) return { kind: 'unknown_account' };
  return db.$transaction(async (tx) => {
    // Dedupe and catalog in one statement: the catalog row moves only if the event id is new.
    const fresh = await tx.$queryRaw<{ fresh: number }[]>`
      WITH processed AS (
        INSERT INTO processed_events (event_id, account_id) VALUES (${eventId}::uuid, ${accountId}::uuid)
        ON CONFLICT (event_id) DO NOTHING
        RETURNING account_id
      )
      INSERT INTO event_names (account_id, name, first_seen_at, last_seen_at, count)
      SELECT account_id, ${name}, ${receivedAt}, ${receivedAt}, 1 FROM processed
      ON CONFLICT (account_id, name) DO UPDATE SET
        first_seen_at = LEAST(event_names.first_seen_at, EXCLUDED.first_seen_at),
        last_seen_at = GREATEST(event_names.last_seen_at, EXCLUDED.last_seen_at),
        count = event_names.count + 1
      RETURNING 1 AS fresh`;
    if (fresh.length === 0) {
      const unpublished = await tx.playbookEffect.findMany({ where: { eventId, publishedAt: null } });
      return { kind: 'duplicate', unpublished };
    }

    const optedIn = await tx.$queryRaw<{ kind: 'exit' | 'trigger'; playbook_id: string }[]>`
      SELECT 'exit' AS kind, playbook_id::text FROM playbook_exits WHERE account_id = ${accountId}::uuid AND event_name = ${name}
      UNION ALL
      SELECT 'trigger' AS kind, playbook_id::text FROM playbook_triggers WHERE account_id = ${accountId}::uuid AND event_name = ${name}`;
    const exits = optedIn.filter((r) => r.kind === 'exit').map((r) => r.playbook_id);
    const triggers = optedIn.filter((r) => r.kind === 'trigger').map((r) => r.playbook_id);
    if (exits.length === 0 && triggers.length === 0) return { kind: 'applied', effects: [] };

    const active = await tx.enrollment.findMany({
      where: { accountId, email, status: 'active', playbookId: { in: [...exits, ...triggers] } },
      select: { id: true, playbookId: true },
    });
    const decision = decideEffects({ exitPlaybookIds: exits, triggerPlaybookIds: triggers, activePlaybookIds: active.map((a) => a.playbookId) });

    const stopIds = active.filter((a) => decision.stop.includes(a.playbookId)).map((a) => a.id);
    if (stopIds.length > 0) {
      await tx.enrollment.updateMany({
        where: { id: { in: stopIds }, status: 'active' },
        data: { status: 'stopped', stoppedAt: now, stoppedBy: name, stopEventId: eventId },
      });
    }
    if (decision.start.length > 0) {
      await tx.enrollment.createMany({
        data: decision.start.map((playbookId) => ({ playbookId, accountId, email, status: 'active', startedAt: now, startedBy: name, startEventId: eventId })),
      });
    }
    const effects: EffectRecord[] = [
      ...decision.stop.map((playbookId) => ({ playbookId, action: 'stopped' })),
      ...decision.start.map((playbookId) => ({ playbookId, action: 'started' })),
    ].map(({ playbookId, action }) => ({ id: randomUUID(), eventId, accountId, playbookId, email, action, at: now }));
    await tx.playbookEffect.createMany({ data: effects.map((e) => ({ ...e, eventName: name })) });
    return { kind: 'applied', effects };
  });
}

export async function markPublished(db: Db, effectIds: string[]): Promise<void> {
  if (effectIds.length === 0) return;
  await db.playbookEffect.updateMany({ where: { id: { in: effectIds } }, data: { publishedAt: new Date() } });
}
