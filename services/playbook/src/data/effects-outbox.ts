// The effects outbox sweeper. The consumer publishes an event's effects right after its batch
// commits; what it could not (a crash between commit and publish, when no redelivery comes) and the
// stops made by a suppression or an erasure (no event, so no consumer publishes them; the CLI has no
// producer at all) are published here: unpublished rows with a cause at once, the others once they
// are older than `graceMs` (the consumer had its chance), oldest first. One replica at a time (an
// advisory lock held for the transaction), so rows go out in order; a repeat is possible (at least
// once) and receivers dedupe by effectId.
import { withAdvisoryLock } from '@glimpse/db';
import { type Db } from '@glimpse/db/playbook';
import type { Logger } from '@glimpse/logging';
import { TOPICS, personKey, type PlaybookEffectMessage } from '@glimpse/messaging';
import type { EffectRecord } from '../domain/batch-store.js';
import { EFFECT_COLUMNS, effectFromRow, type EffectRow } from './batch-store.js';

const PENDING = `SELECT ${EFFECT_COLUMNS} FROM playbook_effects
  WHERE published_at IS NULL AND (cause IS NOT NULL OR at < now() - make_interval(secs => $1::double precision / 1000))
  ORDER BY at, id LIMIT $2`;
const MARK = `UPDATE playbook_effects SET published_at = now() WHERE id = ANY($1::uuid[]) AND published_at IS NULL`;

export interface EffectsProducer {
  send(topic: string, message: { key: string; value: string }): Promise<unknown>;
}

/** An outbox row as playbook.effects carries it. */
function toMessage(e: EffectRecord): PlaybookEffectMessage {
  const message: PlaybookEffectMessage = {
    effectId: e.id,
    eventId: e.eventId,
    accountId: e.accountId,
    playbookId: e.playbookId,
    email: e.email,
    action: e.action as PlaybookEffectMessage['action'],
    at: e.at.toISOString(),
  };
  if (e.cause === 'suppressed' || e.cause === 'erased') message.cause = e.cause;
  return message;
}

/** Sends effects to playbook.effects, keyed by person (one person's effects stay in order); resolves once all are acknowledged. */
export async function sendEffects(producer: EffectsProducer, effects: readonly EffectRecord[]): Promise<void> {
  await Promise.all(effects.map((e) => producer.send(TOPICS.playbookEffects, { key: personKey(e.accountId, e.email), value: JSON.stringify(toMessage(e)) })));
}

/** Publishes pending effects (see above) and marks them; returns how many. 0 when another replica holds the sweep. */
export async function sweepEffects(
  db: Db,
  producer: EffectsProducer,
  { graceMs = 30_000, limit = 500 }: { graceMs?: number; limit?: number } = {},
): Promise<number> {
  const published = await withAdvisoryLock(
    db,
    'effectsSweep',
    async (tx) => {
      const effects = (await tx.$queryRawUnsafe<EffectRow[]>(PENDING, graceMs, limit)).map(effectFromRow);
      if (effects.length === 0) return 0;
      await sendEffects(producer, effects);
      await tx.$executeRawUnsafe(
        MARK,
        effects.map((e) => e.id),
      );
      return effects.length;
    },
    { timeout: 30_000 },
  );
  return published ?? 0;
}

/** Sweeps every `intervalMs`; stop() ends it (and waits for a sweep under way). */
export function scheduleEffectsSweep(
  db: Db,
  producer: EffectsProducer,
  { intervalMs, logger }: { intervalMs: number; logger: Logger },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepEffects(db, producer).then(
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
