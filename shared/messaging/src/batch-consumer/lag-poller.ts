// Asks the broker every `everyMs` for the topic's end offsets and the group's committed offsets, so
// the lag is right also while no batch arrives (a stuck partition gets none).
import type { Admin } from 'kafkajs';
import type { Logger } from '@glimpse/logging';
import type { LagTracker } from './lag-tracker.js';

export type LagAdmin = Pick<Admin, 'connect' | 'disconnect' | 'fetchTopicOffsets' | 'fetchOffsets'>;

export interface LagPollerOptions {
  admin: LagAdmin;
  topic: string;
  groupId: string;
  tracker: LagTracker;
  logger: Logger;
  everyMs: number;
}

export async function pollLagOnce({ admin, topic, groupId, tracker, logger }: Omit<LagPollerOptions, 'everyMs'>): Promise<void> {
  try {
    await admin.connect();
    const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const low = new Map(ends.map((p) => [p.partition, Number(p.low)]));
    for (const p of ends) tracker.observe(p.partition, { end: Number(p.high) });
    for (const p of committed[0]?.partitions ?? []) {
      const at = Number(p.offset);
      // No committed offset yet (-1): the group starts from the beginning, the partition's low offset.
      tracker.observe(p.partition, { position: at >= 0 ? at : (low.get(p.partition) ?? 0) });
    }
  } catch (err) {
    logger.debug({ err: (err as Error).message }, 'lag poll failed');
  }
}

export function createLagPoller(o: LagPollerOptions): { start(): void; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      timer = setInterval(() => void pollLagOnce(o), o.everyMs);
      timer.unref();
      void pollLagOnce(o);
    },
    async stop() {
      if (timer) clearInterval(timer);
      await o.admin.disconnect().catch(() => undefined);
    },
  };
}
