// Fixed one-second windows in Redis, shared by every gateway instance: per account on POST
// /events, per API key on the lookups and the management API, per site and per address on
// /collect. Each counter key carries its subject's hash tag, so it lives in one slot of a cluster.
//
// When Redis fails (down, or a slot without a master during a failover), limits keep limiting:
// the gateway counts in a window of its own memory instead, with the same limit (with N gateways a
// subject can then get up to N times its rate). A limiter that must not run on local counts for
// long (`failClosedAfterMs`: the lookups and the management API) answers 503 with Retry-After once
// Redis has failed for longer than that, until it answers again. POST /events and /collect never
// close: Kafka, not Redis, is what they need.
import { LRUCache } from 'lru-cache';
import { AppError } from '@glimpse/errors';
import type { RedisClient } from './redis-client.js';

/** INCRBY and, on the window's first request, EXPIRE: one round trip and one command. */
const TAKE = `local n = redis.call('INCRBY', KEYS[1], ARGV[1]) if n == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], 2) end return n`;

type WithTake = RedisClient & { glimpseRateTake(key: string, count: number): Promise<number> };

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window (0 when refused). */
  remaining: number;
  /** Seconds until the window resets; also the Retry-After of a refusal. */
  resetSeconds: number;
}

export interface RateLimiter {
  readonly limit: number;
  /** Counts `count` requests (the events of a batch) of `subject` and says whether they fit. */
  take(subject: string, count?: number): Promise<RateDecision>;
}

export interface RateLimiterOptions {
  redis: RedisClient;
  name: string;
  /** The hash-tag prefix of the subject: `a` an account, `k` an API key, `s` a site, `ip` an address. */
  subjectKind: string;
  perSecond: number;
  /** Close (503) after Redis has failed this long; never when absent. */
  failClosedAfterMs?: number;
  onFailure(err: unknown): void;
  /** Requests decided on this gateway's own counts while Redis failed. */
  onLocal?(): void;
  now?: () => number;
}

export function rateLimitKey(name: string, subjectKind: string, subject: string, window: number): string {
  return `glimpse:{${subjectKind}:${subject}}:rate:${name}:${window}`;
}

export function createRateLimiter({
  redis,
  name,
  subjectKind,
  perSecond,
  failClosedAfterMs,
  onFailure,
  onLocal,
  now = Date.now,
}: RateLimiterOptions): RateLimiter {
  if (!('glimpseRateTake' in redis)) redis.defineCommand('glimpseRateTake', { numberOfKeys: 1, lua: TAKE });
  const client = redis as WithTake;
  const local = new LRUCache<string, number>({ max: 100_000, ttl: 2000 });
  /** When Redis began failing for a subject, while it does (per subject: in a cluster, one master may fail while the others answer). */
  // A failure after a quiet while (no request of the subject in between) starts a new outage.
  const failingSince = new LRUCache<string, number>({ max: 100_000, ttl: 2000, updateAgeOnGet: false });

  const decide = (count: number): RateDecision => ({
    allowed: count <= perSecond,
    limit: perSecond,
    remaining: Math.max(0, perSecond - count),
    resetSeconds: 1,
  });

  return {
    limit: perSecond,
    async take(subject, n = 1) {
      const at = now();
      const window = Math.floor(at / 1000);
      const key = rateLimitKey(name, subjectKind, subject, window);
      try {
        const count = Number(await client.glimpseRateTake(key, n));
        if (failingSince.size > 0) failingSince.delete(subject);
        return decide(count);
      } catch (err) {
        onFailure(err);
        const since = failingSince.get(subject) ?? at;
        failingSince.set(subject, since); // the entry lives 2 s past the subject's last failure
        if (failClosedAfterMs !== undefined && at - since > failClosedAfterMs) {
          throw new AppError('service_unavailable', 'rate limits cannot be checked right now; retry later', { cause: err, headers: { 'Retry-After': '1' } });
        }
        onLocal?.();
        const count = (local.get(key) ?? 0) + n;
        local.set(key, count);
        return decide(count);
      }
    },
  };
}
