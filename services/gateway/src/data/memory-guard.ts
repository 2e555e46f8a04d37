// Keeps what may be refused from filling a Redis node. Redis runs with `maxmemory-policy
// noeviction`, so nothing is ever evicted to make room: not a rate-limit counter, not an
// idempotency key. Instead, the classes that can do without Redis are refused before it is full:
// every second this reads `INFO memory` of each master, and a master using more than a class's
// share of its maxmemory takes no new keys of that class until it is under again. Raw copies stop
// first (0.75 by default: counted as missed, the events are still accepted), idempotency keys next
// (0.9: a key is then not held, as when Redis is down); the last tenth is the rate-limit counters'
// alone, which are tiny and live two seconds. A node without a maxmemory is never full.
import { addressOf, masterAddressOf, masters, type RedisClient } from './redis-client.js';

export interface MemoryGuard {
  /** False while the master that holds `key` uses more than `share` of its maxmemory (default: the raw copies' share). */
  admits(key: string, share?: number): boolean;
  stop(): void;
}

export function parseMemoryInfo(info: string): { used: number; max: number } {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), max: field('maxmemory') };
}

export function createMemoryGuard({ redis, fraction, intervalMs = 1000 }: { redis: RedisClient; fraction: number; intervalMs?: number }): MemoryGuard {
  /** used / maxmemory of each master that has a maxmemory. */
  let usage = new Map<string, number>();

  async function poll(): Promise<void> {
    const next = new Map<string, number>();
    await Promise.all(
      masters(redis).map(async (node) => {
        try {
          const { used, max } = parseMemoryInfo(await node.info('memory'));
          if (max > 0) next.set(addressOf(redis, node), used / max);
        } catch {
          // Unreachable: its writes fail on their own (and are counted there).
        }
      }),
    );
    usage = next;
  }

  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  void poll();

  return {
    admits(key, share = fraction) {
      if (usage.size === 0) return true;
      const used = usage.get(masterAddressOf(redis, key));
      return used === undefined || used <= share;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
