// Caps on what the site tag can make an account store or set in motion (docs/decisions/bounded-growth.md, "Bounded
// growth"), counted in Redis across every gateway, each key under the account's hash tag
// `{a:<account>}` with a TTL:
// - new visitor ids per site and UTC day (the site's new_visitors_per_day, else the gateway's
//   default): past it no id is minted and the page view is counted cookieless;
// - identifies per account and minute: past it they are dropped before Kafka.
// Both fail open: without Redis the tag is served as before (the failure is counted), since a cap
// that closes on a Redis outage would lose every site's data.
import type { RedisClient } from './redis-client.js';

const tag = (accountId: string) => `glimpse:{a:${accountId}}`;

export const capKeys = {
  newVisitors: (accountId: string, siteId: string, day: string) => `${tag(accountId)}:newvis:${siteId}:${day}`,
  identifies: (accountId: string, minute: number) => `${tag(accountId)}:ident:${minute}`,
};

/** KEYS: the counter. ARGV: how many, the TTL in seconds. The count after adding them. */
const COUNT = `local n = redis.call('INCRBY', KEYS[1], ARGV[1]) if n == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end return n`;

type WithCount = RedisClient & { glimpseCapCount(key: string, n: number, ttlSeconds: number): Promise<number> };

function counter(redis: RedisClient): WithCount {
  if (!('glimpseCapCount' in redis)) redis.defineCommand('glimpseCapCount', { numberOfKeys: 1, lua: COUNT });
  return redis as WithCount;
}

/** How many of `n` fit under `cap` when the count, after adding them, is `after`. */
export const admitted = (n: number, after: number, cap: number): number => Math.max(0, Math.min(n, cap - (after - n)));

export type CapReason = 'new_visitors_per_day' | 'identifies_per_minute';

export interface CollectCapsOptions {
  redis: RedisClient;
  /** A site's new visitors per UTC day when its own cap is null. */
  newVisitorsPerDay: number;
  identifiesPerMinute: number;
  onFailure(operation: string, err: unknown): void;
  /** What a cap refused, by reason. */
  onCapped(reason: CapReason, n: number): void;
}

export interface CollectCaps {
  /** Whether one more new visitor id may be minted for the site today. */
  admitNewVisitor(site: { id: string; accountId: string; newVisitorsPerDay?: number | null }, now?: number): Promise<boolean>;
  /** How many of `n` identifies the account may still send this minute. */
  admitIdentifies(accountId: string, n: number, now?: number): Promise<number>;
}

/**
 * A day counter's TTL when first counted at `now`: until a minute past its UTC day's end (a gateway
 * whose clock is behind still counts the day), and never more than 24 h, as every key of the tag's
 * traffic.
 */
export function dayKeyTtlSeconds(now: number): number {
  const dayEnd = (Math.floor(now / 86_400_000) + 1) * 86_400_000;
  return Math.min(86_400, Math.ceil((dayEnd - now) / 1000) + 60);
}

export function createCollectCaps({ redis, newVisitorsPerDay, identifiesPerMinute, onFailure, onCapped }: CollectCapsOptions): CollectCaps {
  const client = counter(redis);
  return {
    async admitNewVisitor(site, now = Date.now()) {
      const cap = site.newVisitorsPerDay ?? newVisitorsPerDay;
      const day = new Date(now).toISOString().slice(0, 10);
      try {
        const after = await client.glimpseCapCount(capKeys.newVisitors(site.accountId, site.id, day), 1, dayKeyTtlSeconds(now));
        if (after <= cap) return true;
      } catch (err) {
        onFailure('new_visitor_cap', err);
        return true;
      }
      onCapped('new_visitors_per_day', 1);
      return false;
    },
    async admitIdentifies(accountId, n, now = Date.now()) {
      if (n === 0) return 0;
      const minute = Math.floor(now / 60_000);
      let taken: number;
      try {
        taken = admitted(n, await client.glimpseCapCount(capKeys.identifies(accountId, minute), n, 120), identifiesPerMinute);
      } catch (err) {
        onFailure('identify_cap', err);
        return n;
      }
      if (taken < n) onCapped('identifies_per_minute', n - taken);
      return taken;
    },
  };
}
