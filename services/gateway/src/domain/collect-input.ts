// The rules of POST /collect once the site is known: the body (the tag's wire format, @glimpse/api's
// schema), the visitor id (the _glv cookie, else body vid, else a new one), consent, what each
// event becomes on visitors.collected, and what is dropped: track names the site does not allow,
// identify calls without a valid email, form captures the site does not take, link tokens that are
// not intact, this account's and current, and anything identifying from a cookieless visitor (one
// bad call must not lose the page views batched with it).
import { randomBytes } from 'node:crypto';
import { collectRequestSchema, type CollectEvent, type CollectRequest, type IdentityVerificationMode } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { VISITOR_ID_PATTERN, type CollectedBot, type CollectedMessage } from '@glimpse/messaging';
import { normalizeEmail } from '@glimpse/validation';
import type { LinkTokenCheck } from './link-token.js';
import { trimPageUrl, trimPath, trimReferrer } from './trim-url.js';

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

/**
 * The HttpOnly cookie's vid when valid, else the body's; undefined when neither is. The cookie wins:
 * a script on the page can write any body vid, but cannot read or set the cookie.
 */
export function knownVisitorId(bodyVid: string | null | undefined, cookieHeader: string | undefined): string | undefined {
  const cookie = cookieValue(cookieHeader, VISITOR_COOKIE);
  if (cookie !== undefined && VISITOR_ID_PATTERN.test(cookie)) return cookie;
  return typeof bodyVid === 'string' && VISITOR_ID_PATTERN.test(bodyVid) ? bodyVid : undefined;
}

/** The cookie's vid when valid, else the body's, else a new one (`minted` says which). */
export function visitorIdOf(bodyVid: string | null | undefined, cookieHeader: string | undefined, now = Date.now()): { vid: string; minted: boolean } {
  const known = knownVisitorId(bodyVid, cookieHeader);
  return known !== undefined ? { vid: known, minted: false } : { vid: mintVisitorId(now), minted: true };
}

export function visitorCookie(vid: string, secure: boolean): string {
  return `${VISITOR_COOKIE}=${vid}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly${secure ? '; Secure' : ''}`;
}

/** Deletes the visitor cookie (a denial, or a visitor now counted cookieless). */
export function clearedVisitorCookie(secure: boolean): string {
  return `${VISITOR_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly${secure ? '; Secure' : ''}`;
}

export interface ConsentDecision {
  /** Counted under the day's cookieless id: no cookie, no persistent id, nothing identifying. */
  cookieless: boolean;
  /** A consent item granted the persistent id in this request. */
  granted: boolean;
}

/**
 * Consent, from the site's settings and what the tag says: a denial (top-level or an item) or GPC
 * on a site that honours it is cookieless whatever the site's mode; a site that requires consent
 * is cookieless until the tag says granted (top-level, or a granted item in this batch).
 */
export function decideConsent(
  site: { consent: 'implied' | 'required'; honorGpc: boolean },
  request: Pick<CollectRequest, 'consent' | 'gpc' | 'events'>,
): ConsentDecision {
  const items = request.events.filter((e) => e.type === 'consent');
  const denied = request.consent === 'denied' || (site.honorGpc && request.gpc === true) || items.some((e) => e.state === 'denied');
  if (denied) return { cookieless: true, granted: false };
  const granted = items.some((e) => e.state === 'granted');
  return { cookieless: site.consent === 'required' && request.consent !== 'granted' && !granted, granted };
}

export interface CollectContext {
  accountId: string;
  siteId: string;
  trackEvents: readonly string[];
  /** The site takes captured forms' emails (identify with method form). */
  captureForms: boolean;
  visitorId: string;
  receivedAt: string;
  userAgent?: string;
  ip?: string;
  /** The visitor is counted under its cookieless id (visitorId): page views only, nothing identifying. */
  cookieless: boolean;
  /** The query keys the site's page view URLs keep besides utm_*. */
  queryKeys: readonly string[];
  /** A cookieless request's earlier persistent id (body or cookie): the one a denial is about. */
  priorVisitorId?: string;
  /** An email-link token's email when it is this account's, current and not revoked (checked before, by the caller). */
  verifyLink(token: string): LinkTokenCheck;
  /** The site's identity verification: off (no hash checked), optional or required. */
  identityVerification: IdentityVerificationMode;
  /** Whether an identify's hash is the HMAC of its email under the site's secret (the secret stays with the caller). */
  verifyIdentity(email: string, hash: string | undefined): boolean;
}

export type DropReason =
  | 'track_not_allowed'
  | 'invalid_email'
  | 'form_capture_off'
  | 'link_invalid'
  | 'link_expired'
  | 'link_foreign_account'
  | 'link_revoked'
  | 'link_unchecked'
  | 'cookieless'
  | 'consent_without_visitor'
  | 'identity_unverified';

export interface CollectedBatch {
  messages: CollectedMessage[];
  dropped: Partial<Record<DropReason, number>>;
}

function pageView(event: Extract<CollectEvent, { type: 'pageview' }>, base: CollectedBase, ctx: CollectContext): CollectedMessage {
  // Trimmed here too, whatever sent it: no query string but the allowed keys, and no fragment, reaches Kafka.
  const url = event.url !== undefined ? trimPageUrl(event.url, ctx.queryKeys) : undefined;
  const referrer = event.referrer ? trimReferrer(event.referrer) : undefined;
  return {
    ...base,
    type: 'pageview',
    path: trimPath(event.path),
    ...(url !== undefined ? { url } : {}),
    ...(event.title !== undefined ? { title: event.title } : {}),
    ...(referrer !== undefined ? { referrer } : {}),
    ...(event.utm !== undefined && Object.keys(event.utm).length > 0 ? { utm: event.utm } : {}),
    ...(ctx.userAgent !== undefined ? { userAgent: ctx.userAgent.slice(0, 1024) } : {}),
    // A cookieless view carries no address: it is never matched to a company or a person.
    ...(ctx.cookieless ? { cookieless: true } : ctx.ip !== undefined ? { ip: ctx.ip.slice(0, 64) } : {}),
  };
}

type CollectedBase = Pick<CollectedMessage, 'id' | 'accountId' | 'siteId' | 'visitorId' | 'receivedAt'>;

function consentMessage(event: Extract<CollectEvent, { type: 'consent' }>, base: CollectedBase, ctx: CollectContext): CollectedMessage | DropReason {
  if (event.state === 'denied') {
    // A denial is about the persistent id the browser had; without one there is nothing to undo.
    return ctx.priorVisitorId !== undefined ? { ...base, visitorId: ctx.priorVisitorId, type: 'consent', state: 'denied' } : 'consent_without_visitor';
  }
  if (ctx.cookieless) return 'cookieless';
  const views = grantViews(event.views ?? [], base.receivedAt);
  return { ...base, type: 'consent', state: 'granted', ...(views.length > 0 ? { views } : {}) };
}

const GRANT_VIEW_WINDOW_MS = 24 * 3_600_000;

/**
 * The page views a grant credits to the new visitor (this browser's, sent while consent was
 * pending): paths trimmed, times from the browser's clock never after the grant's arrival, and
 * none older than a day. Only these move: the day's cookieless profile, shared by everyone behind
 * the same address and browser, is left alone.
 */
export function grantViews(views: readonly { id: string; path: string; at: string }[], receivedAt: string): { id: string; path: string; at: string }[] {
  const until = Date.parse(receivedAt);
  return views
    .filter((v) => until - Date.parse(v.at) < GRANT_VIEW_WINDOW_MS)
    .map((v) => ({ id: v.id, path: trimPath(v.path), at: new Date(Math.min(Date.parse(v.at), until)).toISOString() }));
}

function toMessage(event: CollectEvent, ctx: CollectContext): CollectedMessage | DropReason {
  const base = { id: event.id, accountId: ctx.accountId, siteId: ctx.siteId, visitorId: ctx.visitorId, receivedAt: ctx.receivedAt };
  switch (event.type) {
    case 'pageview':
      return pageView(event, base, ctx);
    case 'engagement':
      return { ...base, type: 'engagement', pageViewId: event.pageViewId, seconds: event.seconds };
    case 'consent':
      return consentMessage(event, base, ctx);
    case 'identify': {
      if (ctx.cookieless) return 'cookieless';
      if (event.method === 'form' && !ctx.captureForms) return 'form_capture_off';
      const email = normalizeEmail(event.email);
      // Traits travel no further for now: the identity link needs the email only.
      if (email === null) return 'invalid_email';
      // A captured form is never verified (the tag cannot sign it): a claim, which a site that requires verification drops.
      const verified = event.method !== 'form' && ctx.identityVerification !== 'off' && ctx.verifyIdentity(event.email, event.hash);
      if (!verified && ctx.identityVerification === 'required') return 'identity_unverified';
      const method = event.method ?? 'identify';
      return { ...base, type: 'identify', email, method, verified, ...(event.path !== undefined ? { path: event.path } : {}) };
    }
    case 'link': {
      if (ctx.cookieless) return 'cookieless';
      const check = ctx.verifyLink(event.token);
      if (!check.ok) return check.reason;
      return { ...base, type: 'identify', email: check.email, method: 'email_link', verified: true, ...(event.path !== undefined ? { path: event.path } : {}) };
    }
    case 'track':
      if (ctx.cookieless) return 'cookieless';
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
