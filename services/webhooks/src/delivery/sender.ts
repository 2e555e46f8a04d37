// Sends one signed delivery: POST with a bounded time, no redirects followed, the answer's body
// read and dropped. The connection's name lookup is ours (resolver.ts: c-ares on the event loop,
// bounded in time, never libuv's thread pool), and with the SSRF guard on it refuses a name with
// any non-public address. net.connect then connects only to an address this lookup handed it, so
// the address checked is the address connected to: a name re-pointed after subscription (or
// between a check and a connection) is caught where it matters.
import net, { type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { literalAddress, refusedAddress, refusedScheme, type TargetPolicy } from '../domain/target-policy.js';
import type { AttemptResult } from '../data/delivery-repository.js';
import { ResolveError, type HostResolver } from './resolver.js';

export interface SendInput {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Sender {
  send(input: SendInput): Promise<AttemptResult>;
  close(): Promise<void>;
}

class RefusedTargetError extends Error {}

/**
 * The words of a refused name, the same whether it has a private address or none at all: the
 * attempt log is read by the account, and naming the address (or telling "private" from "does not
 * exist") would let it map internal names through a CNAME it controls.
 */
export const REFUSED_NAME = 'target refused: the host must resolve to public addresses only';

interface Address {
  address: string;
  family: 4 | 6;
}

export function resolvingLookup(resolver: HostResolver, policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (err: Error) => callback(err as NodeJS.ErrnoException, '', 0);
    resolver.resolve(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const list: Address[] = found.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
        if (policy.blockPrivate && list.some((a) => refusedAddress(a.address, policy))) return fail(new RefusedTargetError(REFUSED_NAME));
        const usable = list.filter((a) => !wanted || a.family === wanted);
        if (usable.length === 0) {
          return fail(
            policy.blockPrivate ? new RefusedTargetError(REFUSED_NAME) : Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }),
          );
        }
        if (options.all) return (callback as unknown as (e: null, a: Address[]) => void)(null, usable);
        return callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: unknown) => {
        if (err instanceof ResolveError && err.code === 'ENOTFOUND' && policy.blockPrivate) return fail(new RefusedTargetError(REFUSED_NAME));
        return fail(err as Error);
      },
    );
  };
}

/** A short, data-free reason for the attempt log (never a response body). */
export function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e instanceof RefusedTargetError) return e.message;
  if (e.cause instanceof RefusedTargetError) return e.cause.message;
  const dnsError = e instanceof ResolveError ? e : e.cause instanceof ResolveError ? e.cause : null;
  if (dnsError) return dnsError.code === 'ETIMEOUT' ? `DNS: ${dnsError.message}` : 'request failed: ENOTFOUND';
  if (
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT' ||
    e.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `timed out after ${timeoutMs} ms`;
  }
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code;
  return code ? `request failed: ${code}` : `request failed: ${(e.message ?? 'unknown error').slice(0, 200)}`;
}

/** Why the URL may not be called before any lookup (its scheme, or an IP literal's address), or null. */
export function refusedTarget(url: string, policy: TargetPolicy): string | null {
  const target = new URL(url);
  // An endpoint stored as http:// before production required https is not called over http.
  const scheme = refusedScheme(target, policy);
  if (scheme) return `target refused: ${scheme}`;
  // An IP literal is connected to without a lookup: checked here instead.
  const literal = literalAddress(target);
  const why = literal ? refusedAddress(literal, policy) : null;
  return why ? `target refused: ${why}` : null;
}

export interface SenderOptions {
  timeoutMs: number;
  policy: TargetPolicy;
  resolver: HostResolver;
  /** Connections kept per origin; the dispatcher's caps bound what is in flight to one endpoint. */
  connectionsPerOrigin?: number;
}

export function createSender({ timeoutMs, policy, resolver, connectionsPerOrigin = 16 }: SenderOptions): Sender {
  const agent = new Agent({
    connections: connectionsPerOrigin,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs, lookup: resolvingLookup(resolver, policy) },
  });
  return {
    async send({ url, headers, body }) {
      const started = Date.now();
      const at = new Date(started);
      const done = (r: Omit<AttemptResult, 'at' | 'durationMs'>): AttemptResult => ({ at, durationMs: Date.now() - started, ...r });
      const refused = refusedTarget(url, policy);
      if (refused) return done({ responseStatus: null, error: refused, succeeded: false });
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'user-agent': 'Glimpse-Webhooks/1', ...headers },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        return done({ responseStatus: res.statusCode, error: ok ? null : `endpoint answered ${res.statusCode}`, succeeded: ok });
      } catch (err) {
        return done({ responseStatus: null, error: describe(err, timeoutMs), succeeded: false });
      }
    },
    close: () => agent.close(),
  };
}
