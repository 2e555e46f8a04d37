import { LRUCache } from 'lru-cache';
import { requireCredentialOfKind, requireScope } from './bearer-checks';
import { requireAdmission } from './credential-resolver';
import { decideFromCache, type CacheState } from './cache-decision';
import { createCredentialFetcher, type KnownCredential } from './credential-fetcher';
import { generateCredential } from './credentials';
import { createDbFailureWindow } from './db-failure-window';
import type { Principal } from './authenticator';
import { SCOPES } from './credentials';

const SCOPE = SCOPES[0];

const principal: Principal = { accountId: 'a', credentialId: 'c', kind: 'event_token', scopes: [], workflows: false };

describe('decideFromCache', () => {
  const base: CacheState = { entryAgeMs: undefined, negative: false, inFlight: false, dbSuspect: false, dbFailing: false };
  const decide = (s: Partial<CacheState>) => decideFromCache({ ...base, ...s }, 2000);

  it('when the known entry is fresh, then it is served, whatever the database does', () => {
    expect(decide({ entryAgeMs: 1999, dbFailing: true, dbSuspect: true })).toEqual({ action: 'serve_cached' });
  });

  it('when the credential was unknown a moment ago, then the negative answer is served', () => {
    expect(decide({ negative: true, dbFailing: true })).toEqual({ action: 'serve_negative' });
  });

  it('when a known entry is old and the database failed a moment ago, then the last answer is served, refreshed only once look-ups may be tried again', () => {
    expect(decide({ entryAgeMs: 2000, dbSuspect: true })).toEqual({ action: 'serve_stale', refresh: true });
    expect(decide({ entryAgeMs: 2000, dbSuspect: true, dbFailing: true })).toEqual({ action: 'serve_stale', refresh: false });
  });

  it('when the database is failing and no look-up is under way, then no look-up is tried', () => {
    expect(decide({ dbFailing: true })).toEqual({ action: 'stale_or_unavailable' });
    expect(decide({ dbFailing: true, inFlight: true })).toEqual({ action: 'look_up', admit: false });
  });

  it('when a look-up is needed, then only a new one for an unknown credential asks for admission', () => {
    expect(decide({})).toEqual({ action: 'look_up', admit: true });
    expect(decide({ inFlight: true })).toEqual({ action: 'look_up', admit: false });
    expect(decide({ entryAgeMs: 5000 })).toEqual({ action: 'look_up', admit: false });
  });
});

describe('createDbFailureWindow', () => {
  it('is failing for retryMs after a failure and suspect for at least 30 s', () => {
    const w = createDbFailureWindow(1000);
    expect(w.isFailing(0)).toBe(false);
    expect(w.isSuspect(0)).toBe(false);
    w.failed(10_000);
    expect(w.isFailing(10_999)).toBe(true);
    expect(w.isFailing(11_000)).toBe(false);
    expect(w.isSuspect(39_999)).toBe(true);
    expect(w.isSuspect(40_000)).toBe(false);
    const longRetry = createDbFailureWindow(60_000);
    longRetry.failed(0);
    expect(longRetry.isSuspect(59_999)).toBe(true);
  });
});

describe('createCredentialFetcher', () => {
  function setup(lookup: () => Promise<Principal | null>) {
    const known = new LRUCache<string, KnownCredential>({ max: 10 });
    const unknown = new LRUCache<string, true>({ max: 10 });
    const touch = jest.fn();
    const onDependencyFailure = jest.fn();
    const fetcher = createCredentialFetcher({ lookup: jest.fn(lookup), touch, known, unknown, onDependencyFailure });
    return { fetcher, known, unknown, touch, onDependencyFailure };
  }

  it('when a credential is looked up twice at once, then one query answers both, and a live one is known (not negative) and touched', async () => {
    let calls = 0;
    const t = setup(async () => {
      calls++;
      return principal;
    });
    t.unknown.set('h', true);
    const [a, b] = await Promise.all([t.fetcher.fetch('event_token', 'h'), t.fetcher.fetch('event_token', 'h')]);
    expect(a).toBe(principal);
    expect(b).toBe(principal);
    expect(calls).toBe(1);
    expect(t.known.get('h')?.principal).toBe(principal);
    expect(t.unknown.has('h')).toBe(false);
    expect(t.touch).toHaveBeenCalledTimes(1);
    await new Promise((r) => setImmediate(r));
    expect(t.fetcher.isInFlight('h')).toBe(false);
  });

  it('when the credential is unknown or revoked, then it leaves the known cache and enters the negative one', async () => {
    const t = setup(async () => null);
    t.known.set('h', { principal, fetchedAt: 0 });
    expect(await t.fetcher.fetch('event_token', 'h')).toBeNull();
    expect(t.known.has('h')).toBe(false);
    expect(t.unknown.has('h')).toBe(true);
    expect(t.touch).not.toHaveBeenCalled();
  });

  it('when the database is unreachable, then the failure is reported; another error is not', async () => {
    const unreachable = Object.assign(new Error("Can't reach database server"), { name: 'PrismaClientKnownRequestError', code: 'P1001' });
    const down = setup(async () => {
      throw unreachable;
    });
    await expect(down.fetcher.fetch('event_token', 'h')).rejects.toBe(unreachable);
    expect(down.onDependencyFailure).toHaveBeenCalledTimes(1);
    const bug = setup(async () => {
      throw new TypeError('bug');
    });
    await expect(bug.fetcher.fetch('event_token', 'h')).rejects.toThrow('bug');
    expect(bug.onDependencyFailure).not.toHaveBeenCalled();
  });
});

describe('bearer checks', () => {
  const token = generateCredential('event_token').plain;
  const key = generateCredential('api_key').plain;

  it('returns the credential of the kind required; 401 when missing, malformed or of the other kind', () => {
    expect(requireCredentialOfKind(`Bearer ${token}`, 'event_token')).toBe(token);
    expect(() => requireCredentialOfKind(undefined, 'event_token')).toThrow('missing bearer credential');
    expect(() => requireCredentialOfKind('Bearer nope', 'event_token')).toThrow('this endpoint takes an event token');
    expect(() => requireCredentialOfKind(`Bearer ${token}`, 'api_key')).toThrow('this endpoint takes an API key');
    expect(() => requireCredentialOfKind(`Bearer ${key}`, 'event_token')).toThrow(expect.objectContaining({ code: 'unauthorized' }));
  });

  it('403 only when a scope is required and missing', () => {
    expect(() => requireScope([], undefined)).not.toThrow();
    expect(() => requireScope([SCOPE], SCOPE)).not.toThrow();
    expect(() => requireScope([], SCOPE)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });
});

describe('requireAdmission', () => {
  it('when the address is refused, then 429 with its Retry-After and a "limited" outcome; admitted or no limiter: nothing', () => {
    const outcomes: string[] = [];
    const observe = (o: string) => void outcomes.push(o);
    expect(() => requireAdmission(undefined, '1.2.3.4', observe)).not.toThrow();
    expect(() => requireAdmission(() => ({ allowed: true, retryAfterSeconds: 0 }), '1.2.3.4', observe)).not.toThrow();
    expect(outcomes).toEqual([]);
    expect(() => requireAdmission(() => ({ allowed: false, retryAfterSeconds: 9 }), '1.2.3.4', observe)).toThrow(
      expect.objectContaining({ code: 'rate_limited', headers: { 'Retry-After': '9' } }),
    );
    expect(outcomes).toEqual(['limited']);
  });
});
