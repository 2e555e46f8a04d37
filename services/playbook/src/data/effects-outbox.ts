// The effects outbox sweeper. The consumer publishes an event's effects right after its batch
// commits; what it could not (a crash between commit and publish, when no redelivery comes) and the
// stops made by a suppression or an erasure (no event, so no consumer publishes them; the CLI has no
// producer at all) are published here: unpublished rows with a cause at once, the others once they
// are older than `graceMs` (the consumer had its chance), oldest first. One replica at a time (an
// advisory lock held for the transaction), so rows go out in order; a repeat is possible (at least
// once) and receivers dedupe by effectId.
import type { Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { TOPICS, personKey } from '@glimpse/messaging';
import type { EffectRecord } from './batch-repository.js';

const LOCK_KEY = 7_204_312; // pg_try_advisory_xact_lock key of the sweep
const PENDING = `SELECT id::text AS id, event_id::text AS event_id, account_id::text AS account_id, playbook_id::text AS playbook_id,
    email, action, at, cause
  FROM playbook_effects
  WHERE published_at IS NULL AND (cause IS NOT NULL OR at < now() - make_interval(secs => $1::double precision / 1000))
  ORDER BY at, id LIMIT $2`;
const MARK = `UPDATE playbook_effects SET published_at = now() WHERE id = ANY($1::uuid[]) AND published_at IS NULL`;

export interface EffectsProducer {
  send(topic: string, message: { key: string; value: string }): Promise<unknown>;
}

interface Row {
  id: string;
  event_id: string;
  account_id: string;
  playbook_id: string;
  email: string;
  action: string;
  at: Date;
  cause: string | null;
}

/** Publishes pending effects (see above) and marks them; returns how many. 0 when another replica holds the sweep. */
export async function sweepEffects(
  db: Db,
  producer: EffectsProducer,
  toMessage: (e: EffectRecord) => unknown,
  { graceMs = 30_000, limit = 500 }: { graceMs?: number; limit?: number } = {},
): Promise<number> {
  return db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRawUnsafe<{ locked: boolean }[]>(`SELECT pg_try_advisory_xact_lock(${LOCK_KEY}) AS locked`);
    if (!lock?.locked) return 0;
    const rows = await tx.$queryRawUnsafe<Row[]>(PENDING, graceMs, limit);
    if (rows.length === 0) return 0;
    const effects: EffectRecord[] = rows.map((r) => ({
      id: r.id, eventId: r.event_id, accountId: r.account_id, playbookId: r.playbook_id, email: r.email, action: r.action, at: new Date(r.at), cause: r.cause,
    }));
    await Promise.all(effects.map((e) => producer.send(TOPICS.playbookEffects, { key: personKey(e.accountId, e.email), value: JSON.stringify(toMessage(e)) })));
    await tx.$executeRawUnsafe(MARK, effects.map((e) => e.id));
    return effects.length;
  }, { timeout: 30_000 });
}

/** Sweeps every `intervalMs`; stop() ends it (and waits for a sweep under way). */
export function scheduleEffectsSweep(
  db: Db,
  producer: EffectsProducer,
  toMessage: (e: EffectRecord) => unknown,
  { intervalMs, logger }: { intervalMs: number; logger: Logger },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepEffects(db, producer, toMessage).then(
      (n) => n > 0 && logger.info({ published: n }, 'pending effects published'),
      (err: unknown) => logger.warn({ err: (err as Error).message?.slice(0, 200) }, 'effects sweep failed; next round'),
    );
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
