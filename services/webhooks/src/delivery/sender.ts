// Sends one signed delivery: POST with a bounded time, no redirects followed, the answer's body
// read and dropped. With the SSRF guard on, the connection's own DNS lookup refuses non-public
// addresses, so a name re-pointed after subscription is caught where it matters.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { literalAddress, refusedAddress, type TargetPolicy } from '../domain/target-policy.js';
import type { AttemptResult } from '../data/delivery-repository.js';

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

function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      for (const a of list) {
        const why = refusedAddress(a.address, policy);
        if (why) return callback(new RefusedTargetError(`target refused: ${hostname} resolves to a non-public address (${why})`), '', 0);
      }
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** A short, data-free reason for the attempt log (never a response body). */
function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e instanceof RefusedTargetError) return e.message;
  if (e.cause instanceof RefusedTargetError) return e.cause.message;
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timed out after ${timeoutMs} ms`;
  }
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code;
  return code ? `request failed: ${code}` : `request failed: ${(e.message ?? 'unknown error').slice(0, 200)}`;
}

export function createSender({ timeoutMs, policy, connectionsPerOrigin = 4 }: { timeoutMs: number; policy: TargetPolicy; connectionsPerOrigin?: number }): Sender {
  const agent = new Agent({
    connections: connectionsPerOrigin,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs, ...(policy.blockPrivate ? { lookup: guardedLookup(policy) } : {}) },
  });
  return {
    async send({ url, headers, body }) {
      const started = Date.now();
      const at = new Date(started);
      const done = (r: Omit<AttemptResult, 'at' | 'durationMs'>): AttemptResult => ({ at, durationMs: Date.now() - started, ...r });
      // An IP literal is connected to without a lookup: checked here instead.
      const literal = literalAddress(new URL(url));
      const why = literal ? refusedAddress(literal, policy) : null;
      if (why) return done({ responseStatus: null, error: `target refused: ${why}`, succeeded: false });
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
