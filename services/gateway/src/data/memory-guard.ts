// Keeps raw copies from filling a Redis node. Redis runs with `maxmemory-policy noeviction`, so
// nothing is ever evicted to make room: not a rate-limit counter, not an idempotency key. Raw copies
// are the one class that may be refused instead: every second this reads `INFO memory` of each
// master, and a master using more than `fraction` of its maxmemory takes no new raw copies until it
// is under again (they are counted as missed; the events are still accepted). The rest of the
// memory stays free for the counters and keys. A node without a maxmemory is never full.
import calculateSlot from 'cluster-key-slot';
import { addressOf, masterAddressOf, masters, type RedisClient } from './redis-client.js';

export interface MemoryGuard {
  /** False while the master that holds `key` is above the raw copies' share of its memory. */
  admits(key: string): boolean;
  stop(): void;
}

export function parseMemoryInfo(info: string): { used: number; max: number } {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), max: field('maxmemory') };
}

export function createMemoryGuard({ redis, fraction, intervalMs = 1000 }: { redis: RedisClient; fraction: number; intervalMs?: number }): MemoryGuard {
  let full = new Set<string>();
  const clustered = 'slots' in redis;

  async function poll(): Promise<void> {
    const next = new Set<string>();
    await Promise.all(
      masters(redis).map(async (node) => {
        try {
          const { used, max } = parseMemoryInfo(await node.info('memory'));
          if (max > 0 && used > max * fraction) next.add(clustered ? addressOf(node) : 'single');
        } catch {
          // Unreachable: its writes fail on their own (and are counted there).
        }
      }),
    );
    full = next;
  }

  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  void poll();

  return {
    admits(key) {
      if (full.size === 0) return true;
      return !full.has(masterAddressOf(redis, clustered ? calculateSlot(key) : null));
    },
    stop() {
      clearInterval(timer);
    },
  };
}
