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

export async function applyEventInTransaction(db: Db, event: InboundEvent, now = new Date()): Promise<ApplyOutcome> {
  const { eventId, accountId, email, event: name } = event;
  const receivedAt = new Date(event.receivedAt);
  return db.$transaction(async (tx) => {
    const inserted = await tx.$executeRaw`
      INSERT INTO processed_events (event_id, account_id) VALUES (${eventId}::uuid, ${accountId}::uuid)
      ON CONFLICT (event_id) DO NOTHING`;
    if (inserted === 0) {
      const unpublished = await tx.playbookEffect.findMany({ where: { eventId, publishedAt: null } });
      return { kind: 'duplicate', unpublished };
    }
    const account = await tx.account.findUnique({ where: { id: accountId }, select: { id: true } });
    if (!account) return { kind: 'unknown_account' };

    await tx.$executeRaw`
      INSERT INTO event_names (account_id, name, first_seen_at, last_seen_at, count)
      VALUES (${accountId}::uuid, ${name}, ${receivedAt}, ${receivedAt}, 1)
      ON CONFLICT (account_id, name) DO UPDATE SET
        first_seen_at = LEAST(event_names.first_seen_at, EXCLUDED.first_seen_at),
        last_seen_at = GREATEST(event_names.last_seen_at, EXCLUDED.last_seen_at),
        count = event_names.count + 1`;

    const byName = { accountId, eventName: name };
    const exits = (await tx.playbookExit.findMany({ where: byName, select: { playbookId: true } })).map((r) => r.playbookId);
    const triggers = (await tx.playbookTrigger.findMany({ where: byName, select: { playbookId: true } })).map((r) => r.playbookId);
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
