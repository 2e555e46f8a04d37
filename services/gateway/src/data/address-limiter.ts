// A token bucket per client address, in this gateway's memory: checked before a credential
// look-up reaches Postgres, so made-up credentials from one address cost a bounded number of
// queries. In memory on purpose: no Redis round trip, and it holds when Redis is down. With N
// gateways an address gets N times the rate; the addresses tracked are bounded (LRU). An IPv6
// client counts per /64 (one host usually holds a whole /64: per full address it could walk
// around the limit), an IPv4-mapped IPv6 address as its IPv4 address.
import { LRUCache } from 'lru-cache';
import type { RateDecision } from './rate-limiter.js';
import { addressSubject } from '../domain/cookieless-id.js';

export interface AddressLimiter {
  /** Takes one token for the address. */
  take(address: string | undefined): RateDecision;
  /** The address's state without taking, for the RateLimit headers of an answer. */
  peek(address: string | undefined): RateDecision;
  /** Gives back a token taken for something that turned out not to count (the bucket never exceeds its burst). */
  refund(address: string | undefined): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

export function createAddressLimiter({
  perSecond,
  burst,
  maxAddresses = 100_000,
}: {
  perSecond: number;
  burst: number;
  maxAddresses?: number;
}): AddressLimiter {
  const buckets = new LRUCache<string, Bucket>({ max: maxAddresses });

  function refill(address: string, now: number): Bucket {
    const bucket = buckets.get(address) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    return bucket;
  }

  function decision(bucket: Bucket, allowed: boolean): RateDecision {
    const missing = burst - bucket.tokens;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      // Until the bucket is full again; a refusal waits for the next whole token.
      resetSeconds: Math.max(1, Math.ceil((allowed ? missing : 1 - bucket.tokens) / perSecond)),
    };
  }

  return {
    take(address) {
      const subject = addressSubject(address);
      const bucket = refill(subject, Date.now());
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      buckets.set(subject, bucket);
      return decision(bucket, allowed);
    },
    peek(address) {
      return decision(refill(addressSubject(address), Date.now()), true);
    },
    refund(address) {
      const subject = addressSubject(address);
      const bucket = refill(subject, Date.now());
      bucket.tokens = Math.min(burst, bucket.tokens + 1);
      buckets.set(subject, bucket);
    },
  };
}
