// POST /collect: what the site tag sends, with the publishable site key in the body. The key names
// a site (401 otherwise), the Origin must be one of the site's (403, nothing recorded), CORS
// answers only those origins; then the body's rules, the client address's rate limit and then the
// site's (so a flood from one address never spends the site's budget), bots, consent (a persistent
// id and its cookie, or the day's cookieless id and no cookie), and every message in Kafka before
// the answer. OPTIONS answers the preflight of an application/json post. The messages of an
// account without the workflows add-on (as the site cache knows it) carry workflows: false, so the
// visitors service fires no page rule and forwards no track for them.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { COLLECT_BODY_LIMIT_BYTES } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { BatchingProducer, CollectedMessage } from '@glimpse/messaging';
import type { DailySalt } from '../data/daily-salt.js';
import type { RateLimiter } from '../data/rate-limiter.js';
import type { CollectCaps } from '../data/collect-caps.js';
import type { SiteCache } from '../data/site-cache.js';
import type { CollectSite } from '../data/site-repository.js';
import { recordCollected } from '../domain/accept-collect.js';
import { detectBot } from '../domain/bot-filter.js';
import { dropIdentifiesBeyond, identifiesIn } from '../domain/identify-cap.js';
import {
  botMessages,
  clearedVisitorCookie,
  collectedMessages,
  cookieValue,
  decideConsent,
  knownVisitorId,
  parseCollectRequest,
  VISITOR_COOKIE,
  visitorCookie,
  visitorIdOf,
  type DropReason,
} from '../domain/collect-input.js';
import { addressSubject, cookielessId } from '../domain/cookieless-id.js';
import { verifyIdentityHash } from '../domain/identity-hash.js';
import type { LinkTokenCheck } from '../domain/link-token.js';
import { isSiteKey } from '../domain/site-input.js';
import { jsonProblem } from './json-body.js';
import { refusal } from './rate-limit.js';

export interface CollectRouteOptions {
  sites: SiteCache;
  producer: BatchingProducer;
  /** Per site: requests per second. */
  rateLimiter: RateLimiter;
  /** Per client address (IPv6 by /64): requests per second, checked first. */
  addressRateLimiter: RateLimiter;
  /** The salt of the day's cookieless ids. */
  salt: DailySalt;
  /** New visitor ids per site and day, identifies per account and minute. */
  caps: CollectCaps;
  /** A link token's check, its revocations included (through a short cache: a link page view can come on any request). */
  linkTokens: { verify(token: string, accountId: string): Promise<LinkTokenCheck> };
  onAccepted(count: number): void;
  /** Bot page views, by what matched. */
  onBot(reason: string, count: number): void;
  onDropped(reason: DropReason, count: number): void;
}

const BODY_TYPES = ['text/plain', 'application/json'];

type CollectRequest = ReturnType<typeof parseCollectRequest>;

/** A message of an account without the workflows add-on: still a visit, never a workflows event. */
const withoutWorkflows = (m: CollectedMessage): CollectedMessage => ({ ...m, workflows: false });

const bodyType: RequestHandler = (req, _res, next) => {
  if (!req.is(BODY_TYPES)) throw new AppError('unsupported_media_type', 'send the body as JSON with Content-Type: text/plain or application/json');
  next();
};

function allowOrigin(res: Response, origin: string): void {
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': 'Retry-After',
  });
}

/** The site's origins only: anything else is refused before a byte is recorded. */
function checkOrigin(site: CollectSite, origin: string | undefined): string {
  if (origin === undefined || !site.origins.includes(origin)) throw new AppError('forbidden', "the request's Origin is not one of the site's origins");
  return origin;
}

function parseText(text: unknown): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(typeof text === 'string' ? text : '');
  } catch {
    throw new AppError('invalid_request', 'the body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('invalid_request', 'body must be a JSON object');
  const problem = jsonProblem(body);
  if (problem) throw new AppError('invalid_request', `request body refused: ${problem}`);
  return body as Record<string, unknown>;
}

/**
 * The visitor a request counts for and the consent it is counted under: a new visitor id past the
 * site's cap for the UTC day is not minted (the view is counted cookieless); a cookieless view gets
 * today's id, and names the visitor id it had before, if any.
 */
async function countedVisitor(site: CollectSite, input: CollectRequest, req: Request, { caps, salt }: Pick<CollectRouteOptions, 'caps' | 'salt'>) {
  const cookieHeader = req.headers.cookie;
  const decided = decideConsent(site, input);
  const known = knownVisitorId(input.vid, cookieHeader);
  const minting = !decided.cookieless && known === undefined;
  const consent = minting && !(await caps.admitNewVisitor(site)) ? { ...decided, cookieless: true } : decided;
  const todaysId = consent.cookieless ? cookielessId(await salt.get(), site.id, req.ip, req.get('user-agent')) : undefined;
  const { vid } = consent.cookieless ? { vid: todaysId! } : visitorIdOf(input.vid, cookieHeader);
  return { consent, vid, priorVisitorId: consent.cookieless ? known : undefined };
}

/** Link tokens are checked first: their revocations are read (through a cache) before the batch is judged. */
async function linkChecks(input: CollectRequest, site: CollectSite, linkTokens: CollectRouteOptions['linkTokens']): Promise<Map<string, LinkTokenCheck>> {
  const links = new Map<string, LinkTokenCheck>();
  for (const e of input.events) if (e.type === 'link' && !links.has(e.token)) links.set(e.token, await linkTokens.verify(e.token, site.accountId));
  return links;
}

/** The answer: the visitor's cookie set; cookieless (vid null), none set, and one left from before (a denial after a grant) deleted. */
function answerCollected(req: Request, res: Response, vid: string | null, accepted: number): void {
  if (vid !== null) {
    res.set('Set-Cookie', visitorCookie(vid, req.secure)).json({ vid, accepted });
    return;
  }
  if (cookieValue(req.headers.cookie, VISITOR_COOKIE) !== undefined) res.set('Set-Cookie', clearedVisitorCookie(req.secure));
  res.json({ vid: null, accepted });
}

type SiteOf = (key: unknown, address: string | undefined) => Promise<CollectSite>;

export function collectRouter(options: CollectRouteOptions): Router {
  const router = express.Router();
  // A key the cache does not hold spends the client address's budget of site-key look-ups.
  const siteOf: SiteOf = async (key, address) => {
    const site = isSiteKey(key) ? await options.sites.get(key, { address }) : null;
    if (!site) throw new AppError('unauthorized', 'unknown site key');
    return site;
  };
  router.options('/collect', preflight(siteOf));
  router.post('/collect', bodyType, express.text({ type: BODY_TYPES, limit: COLLECT_BODY_LIMIT_BYTES }), async (req, res) => {
    await collect(options, siteOf, req, res);
  });
  return router;
}

/**
 * The preflight has no body: with ?site= it is answered for that site's origins only; without, for
 * any origin, since the post itself is refused (403, no CORS) from a foreign one.
 */
function preflight(siteOf: SiteOf): RequestHandler {
  return async (req, res) => {
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin === undefined) throw new AppError('forbidden', 'a preflight names its Origin');
    if (req.query.site !== undefined) checkOrigin(await siteOf(req.query.site, req.ip), origin);
    allowOrigin(res, origin);
    res.set({ 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'Content-Type', 'Access-Control-Max-Age': '600' }).status(204).end();
  };
}

/** The address's rate first, then the site's: a refusal by the address must not spend the site's budget. */
async function takeRates({ addressRateLimiter, rateLimiter }: CollectRouteOptions, site: CollectSite, ip: string | undefined): Promise<void> {
  const byAddress = await addressRateLimiter.take(addressSubject(ip));
  if (!byAddress.allowed) throw refusal(byAddress, 'too many requests from this address; slow down and retry');
  const d = await rateLimiter.take(site.id);
  if (!d.allowed) throw refusal(d, 'too many requests for this site; slow down and retry');
}

/** One POST /collect: the site and its origin, the body, the rates, then a bot's views or a visitor's messages into Kafka. */
async function collect(o: CollectRouteOptions, siteOf: SiteOf, req: Request, res: Response): Promise<void> {
  res.vary('Origin');
  const body = parseText(req.body);
  const site = await siteOf(body.site, req.ip);
  allowOrigin(res, checkOrigin(site, req.get('origin')));
  const input = parseCollectRequest(body);
  await takeRates(o, site, req.ip);
  const receivedAt = new Date().toISOString();
  const userAgent = req.get('user-agent');
  const bot = detectBot(userAgent);
  if (bot) {
    const messages = botMessages(input.events, { accountId: site.accountId, siteId: site.id, receivedAt }, bot.reason);
    await recordCollected(o.producer, messages);
    o.onBot(bot.reason, messages.length);
    res.json({ vid: null, accepted: 0, bot: true });
    return;
  }
  const { consent, vid, priorVisitorId } = await countedVisitor(site, input, req, o);
  const links = consent.cookieless ? new Map<string, LinkTokenCheck>() : await linkChecks(input, site, o.linkTokens);
  const { messages, dropped } = collectedMessages(input.events, {
    accountId: site.accountId,
    siteId: site.id,
    trackEvents: site.trackEvents,
    captureForms: site.captureForms,
    visitorId: vid,
    receivedAt,
    userAgent,
    ip: req.ip,
    cookieless: consent.cookieless,
    queryKeys: site.queryKeys,
    ...(priorVisitorId !== undefined ? { priorVisitorId } : {}),
    verifyLink: (token) => links.get(token) ?? { ok: false, reason: 'link_invalid' },
    identityVerification: site.identityVerification,
    verifyIdentity: (email, hash) => verifyIdentityHash(site.identity, email, hash),
  });
  // Identifies past the account's cap for the minute are dropped before Kafka (the caps count them).
  const identifies = identifiesIn(messages);
  if (identifies > 0) dropIdentifiesBeyond(messages, await o.caps.admitIdentifies(site.accountId, identifies));
  await recordCollected(o.producer, site.workflows ? messages : messages.map(withoutWorkflows));
  o.onAccepted(messages.length);
  for (const [reason, n] of Object.entries(dropped)) o.onDropped(reason as DropReason, n);
  answerCollected(req, res, consent.cookieless ? null : vid, messages.length);
}
