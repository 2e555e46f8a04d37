// The rules of POST /collect once the site is known: the body (the tag's wire format, @glimpse/api's
// schema), the visitor id (body vid, else the _glv cookie, else a new one), what each event becomes
// on visitors.collected, and what is dropped: track names the site does not allow, identify calls
// without a valid email (one bad call must not lose the page views batched with it).
import { randomBytes } from 'node:crypto';
import { collectRequestSchema, type CollectEvent, type CollectRequest } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { VISITOR_ID_PATTERN, type CollectedBot, type CollectedMessage } from '@glimpse/messaging';
import { normalizeEmail } from '@glimpse/validation';

export const VISITOR_COOKIE = '_glv';

export function parseCollectRequest(body: unknown): CollectRequest {
  const result = collectRequestSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? ` (${issue.path.join('.')})` : '';
  throw new AppError('invalid_request', `${issue.message}${where}`);
}

/** A visitor id shaped like a MongoDB ObjectId: 4 bytes of Unix seconds, then 8 random bytes. */
export function mintVisitorId(now = Date.now()): string {
  const seconds = Buffer.alloc(4);
  seconds.writeUInt32BE(Math.floor(now / 1000) >>> 0);
  return Buffer.concat([seconds, randomBytes(8)]).toString('hex');
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The body's vid when valid, else the cookie's, else a new one (`minted` says which). */
export function visitorIdOf(bodyVid: string | null | undefined, cookieHeader: string | undefined, now = Date.now()): { vid: string; minted: boolean } {
  if (typeof bodyVid === 'string' && VISITOR_ID_PATTERN.test(bodyVid)) return { vid: bodyVid, minted: false };
  const cookie = cookieValue(cookieHeader, VISITOR_COOKIE);
  if (cookie !== undefined && VISITOR_ID_PATTERN.test(cookie)) return { vid: cookie, minted: false };
  return { vid: mintVisitorId(now), minted: true };
}

export function visitorCookie(vid: string, secure: boolean): string {
  return `${VISITOR_COOKIE}=${vid}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly${secure ? '; Secure' : ''}`;
}

export interface CollectContext {
  accountId: string;
  siteId: string;
  trackEvents: readonly string[];
  visitorId: string;
  receivedAt: string;
  userAgent?: string;
  ip?: string;
}

export type DropReason = 'track_not_allowed' | 'invalid_email';

export interface CollectedBatch {
  messages: CollectedMessage[];
  dropped: Partial<Record<DropReason, number>>;
}

function toMessage(event: CollectEvent, ctx: CollectContext): CollectedMessage | DropReason {
  const base = { id: event.id, accountId: ctx.accountId, siteId: ctx.siteId, visitorId: ctx.visitorId, receivedAt: ctx.receivedAt };
  switch (event.type) {
    case 'pageview':
      return {
        ...base,
        type: 'pageview',
        path: event.path,
        ...(event.url !== undefined ? { url: event.url } : {}),
        ...(event.title !== undefined ? { title: event.title } : {}),
        ...(event.referrer ? { referrer: event.referrer } : {}),
        ...(event.utm !== undefined && Object.keys(event.utm).length > 0 ? { utm: event.utm } : {}),
        ...(ctx.userAgent !== undefined ? { userAgent: ctx.userAgent.slice(0, 1024) } : {}),
        ...(ctx.ip !== undefined ? { ip: ctx.ip.slice(0, 64) } : {}),
      };
    case 'engagement':
      return { ...base, type: 'engagement', pageViewId: event.pageViewId, seconds: event.seconds };
    case 'identify': {
      const email = normalizeEmail(event.email);
      // Traits travel no further for now: the identity link needs the email only.
      return email === null ? 'invalid_email' : { ...base, type: 'identify', email, ...(event.path !== undefined ? { path: event.path } : {}) };
    }
    case 'track':
      return ctx.trackEvents.includes(event.event) ? { ...base, type: 'track', event: event.event, properties: event.properties ?? {} } : 'track_not_allowed';
  }
}

export function collectedMessages(events: readonly CollectEvent[], ctx: CollectContext): CollectedBatch {
  const batch: CollectedBatch = { messages: [], dropped: {} };
  for (const event of events) {
    const out = toMessage(event, ctx);
    if (typeof out === 'string') batch.dropped[out] = (batch.dropped[out] ?? 0) + 1;
    else batch.messages.push(out);
  }
  return batch;
}

/** A bot's page views: counted per site, never a visitor. */
export function botMessages(events: readonly CollectEvent[], ctx: Pick<CollectContext, 'accountId' | 'siteId' | 'receivedAt'>, reason: string): CollectedBot[] {
  return events
    .filter((e) => e.type === 'pageview')
    .map((e) => ({ type: 'bot', id: e.id, accountId: ctx.accountId, siteId: ctx.siteId, receivedAt: ctx.receivedAt, reason: reason.slice(0, 128) }));
}
