// Sends one Slack message with Slack's own client (@slack/webhook's IncomingWebhook): its own
// retries off (the schedule in Postgres retries, across restarts), a bounded time, and the HTTP
// request made by the `fetch` it accepts, which is ours: undici with the same guarded lookup as the
// webhooks (sender.ts: SSRF checks at each connection) and no redirect followed (undici's request
// follows none; the client also asks fetch for redirect: 'error'). The client's errors carry the
// status but not the headers, so our fetch keeps the answer's status and Retry-After for the
// dispatcher: 429 waits Retry-After, 404 and 410 mean the incoming webhook was removed (revoked).
// The URL is a secret: it is never logged nor written in an attempt's error.
import { IncomingWebhook, IncomingWebhookHTTPError, IncomingWebhookRequestError, type FetchFunction } from '@slack/webhook';
import { Agent, request } from 'undici';
import type { AttemptResult } from '../data/delivery-repository.js';
import type { SlackMessage } from '../domain/slack-blocks.js';
import type { TargetPolicy } from '../domain/target-policy.js';
import type { HostResolver } from './resolver.js';
import { describe, refusedTarget, resolvingLookup } from './sender.js';

export interface SlackAttempt extends AttemptResult {
  /** A 429's Retry-After: the next attempt is not before it. */
  retryAfterMs?: number;
  /** Slack answered 404 or 410: the incoming webhook no longer exists. */
  revoked?: boolean;
}

export interface SlackSender {
  send(input: { url: string; message: SlackMessage }): Promise<SlackAttempt>;
  close(): Promise<void>;
}

type FetchResponse = Awaited<ReturnType<FetchFunction>>;

/** What is read of an answer's body: Slack's are a word ("ok", "invalid_payload", "no_service"). */
const BODY_LIMIT = 4096;

/** Retry-After in seconds or as an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Slack's error word from an answer's body (never anything longer or freer: it goes to the attempt log). */
const slackCode = (body: string): string | null => (/^[a-z_]{1,60}$/.test(body.trim()) ? body.trim() : null);

function guardedFetch(agent: Agent, seen: { status?: number; retryAfter?: string | null }): FetchFunction {
  return async (url, init) => {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: init?.headers,
      body: typeof init?.body === 'string' ? init.body : undefined,
      signal: init?.signal,
    });
    let body = '';
    for await (const chunk of res.body) {
      body += (chunk as Buffer).toString('utf8');
      if (body.length >= BODY_LIMIT) {
        res.body.destroy();
        break;
      }
    }
    const header = (name: string): string | null => {
      const value = res.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    };
    seen.status = res.statusCode;
    seen.retryAfter = header('retry-after');
    const response: FetchResponse = {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      status: res.statusCode,
      statusText: '',
      url: String(url),
      headers: {
        get: header,
        entries: () => Object.keys(res.headers).map((k): [string, string] => [k, header(k) ?? '']),
      },
      text: () => Promise.resolve(body),
      json: () => Promise.resolve(JSON.parse(body) as unknown),
      arrayBuffer: () => Promise.resolve(new TextEncoder().encode(body).buffer),
    };
    return response;
  };
}

export function createSlackSender({ timeoutMs, policy, resolver }: { timeoutMs: number; policy: TargetPolicy; resolver: HostResolver }): SlackSender {
  const agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connect: { timeout: timeoutMs, lookup: resolvingLookup(resolver, policy) } });
  return {
    async send({ url, message }) {
      const started = Date.now();
      const done = (r: Omit<SlackAttempt, 'at' | 'durationMs'>): SlackAttempt => ({ at: new Date(started), durationMs: Date.now() - started, ...r });
      const refused = refusedTarget(url, policy);
      if (refused) return done({ responseStatus: null, error: refused, succeeded: false });
      const seen: { status?: number; retryAfter?: string | null } = {};
      const hook = new IncomingWebhook(url, { fetch: guardedFetch(agent, seen), timeout: timeoutMs, retryConfig: { retries: 0 } });
      try {
        await hook.send(message);
        return done({ responseStatus: seen.status ?? null, error: null, succeeded: true });
      } catch (err) {
        if (err instanceof IncomingWebhookHTTPError) {
          const status = err.statusCode;
          const code = slackCode(err.body);
          return done({
            responseStatus: status,
            error: `Slack answered ${status}${code ? ` (${code})` : ''}`,
            succeeded: false,
            ...(status === 429 ? { retryAfterMs: retryAfterMs(seen.retryAfter) } : {}),
            ...(status === 404 || status === 410 ? { revoked: true } : {}),
          });
        }
        const original = err instanceof IncomingWebhookRequestError ? err.original : err;
        return done({ responseStatus: null, error: describe(original, timeoutMs), succeeded: false });
      }
    },
    close: () => agent.close(),
  };
}
