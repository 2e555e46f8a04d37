// A readiness check that asks a broker, rather than trusting a client's "connected" flag: kafkajs
// keeps a producer "connected" while its broker is dead, so /readyz answered "kafka ok" through an
// outage. One metadata request at most every `cacheMs`, so frequent probes cost the broker nothing.
import type { Admin, Kafka } from 'kafkajs';

export interface KafkaHealthCheck {
  /** Resolves when a broker answered a metadata request for `topic`; throws a short reason otherwise. */
  check(): Promise<void>;
  close(): Promise<void>;
}

export function createKafkaHealthCheck({
  kafka,
  topic,
  timeoutMs = 1500,
  cacheMs = 1000,
}: {
  kafka: Kafka;
  topic: string;
  timeoutMs?: number;
  cacheMs?: number;
}): KafkaHealthCheck {
  let admin: Admin | undefined;
  let last: { at: number; result: Promise<void> } | undefined;

  async function probe(): Promise<void> {
    admin ??= kafka.admin({ retry: { retries: 0 } });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no broker answered within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([
        (async () => {
          await admin!.connect();
          const { topics } = await admin!.fetchTopicMetadata({ topics: [topic] });
          const partitions = topics[0]?.partitions ?? [];
          // A partition without a leader cannot take writes (acks=all): not ready.
          if (partitions.length === 0 || partitions.some((p) => p.leader < 0)) throw new Error(`${topic} has partitions without a leader`);
        })(),
        timeout,
      ]);
    } catch (err) {
      // A fresh admin next time: a half-dead connection must not answer for the broker.
      const stale = admin;
      admin = undefined;
      void stale?.disconnect().catch(() => undefined);
      const message = (err as Error).message || 'unreachable';
      throw new Error(/no broker answered|without a leader/.test(message) ? message : 'broker unreachable', { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    check() {
      const now = Date.now();
      if (!last || now - last.at >= cacheMs) last = { at: now, result: probe() };
      return last.result;
    },
    async close() {
      await admin?.disconnect().catch(() => undefined);
      admin = undefined;
    },
  };
}
