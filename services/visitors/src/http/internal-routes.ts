// The visitors service's internal HTTP API, behind the gateway: a visitor's page-view fields (the
// details lookup) and full record, the latest visitors, a site's last 24 hours and stats, page
// rules, the companies view, and deletions (a site's data, an erased person's links and aggregates). The gateway names the account.
import type { Request, Response, Router } from 'express';
import type { Db } from '@glimpse/db/visitors';
import { AppError } from '@glimpse/errors';
import { cutPage, gatewayInternalRouter, parsePageQuery, queryStrings } from '@glimpse/http';
import { VISITOR_ID_PATTERN } from '@glimpse/messaging';
import { isUuid, normalizeEmail } from '@glimpse/validation';
import {
  decodeVisitorCursor,
  decodeVisitorScoreCursor,
  detailsOf,
  encodeVisitorCursor,
  encodeVisitorScoreCursor,
  listItemOf,
  profileIntent,
  recordOf,
  trafficSince,
  zeroFilledHours,
} from '../domain/visitor-views.js';
import { intentWeights } from '../data/intent-repository.js';
import { intentRoutes } from './intent-routes.js';
import { erasureHash } from '../data/erasure-hash.js';
import {
  deleteSiteData,
  erasePerson,
  findVisitor,
  siteHours,
  siteStats,
  visitorPage,
  visitorPageByScore,
  visitorWithHistory,
} from '../data/visitor-repository.js';
import { companyRoutes } from './company-routes.js';
import { pageRulesRouter } from './page-rules-routes.js';
import { segmentRoutes } from './segment-routes.js';
import { eraseSegmentEntries } from '../data/segment-repository.js';

function identifiedFilter(value: unknown): boolean | null {
  if (value === undefined) return null;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new AppError('invalid_request', 'identified must be true or false');
}

export function internalRouter({
  db,
  internalTokens,
  erasureSecret,
  pageRulesPerAccount,
  companiesCacheMs = 60_000,
  segmentsPerAccount,
  now = () => new Date(),
}: {
  db: Db;
  internalTokens: Partial<Record<string, string>>;
  erasureSecret: string;
  pageRulesPerAccount?: number;
  /** How long the companies view reuses a window's aggregate (ms). */
  companiesCacheMs?: number;
  /** Most segments one account may have. */
  segmentsPerAccount?: number;
  now?: () => Date;
}): Router {
  const { router, account, json } = gatewayInternalRouter(internalTokens);
  visitorRoutes(router, { db, account, now });
  siteRoutes(router, { db, account, now, erasureSecret });
  router.use(pageRulesRouter({ db, maxPerAccount: pageRulesPerAccount }));
  router.use(intentRoutes({ db, account, json }));
  router.use(companyRoutes({ db, account, json, now, cacheMs: companiesCacheMs }));
  router.use(segmentRoutes({ db, account, json, now, maxPerAccount: segmentsPerAccount }));
  return router;
}

/** What the visitor and site routes share: the database, the account the gateway names, the clock. */
interface RouteContext {
  db: Db;
  account: (res: Response) => string;
  now: () => Date;
}

/** A visitor's details and record, and the latest visitors (by last seen or by score). */
function visitorRoutes(router: Router, { db, account, now }: RouteContext): void {
  router.get('/internal/visitors/:visitorId/details', async (req, res) => {
    const id = req.params.visitorId as string;
    const visitor = VISITOR_ID_PATTERN.test(id) ? await findVisitor(db, account(res), id) : null;
    if (!visitor) throw new AppError('not_found', 'no visitor with this id');
    res.json(detailsOf(visitor, profileIntent(visitor, now(), await intentWeights(db, account(res)))));
  });

  router.get('/internal/visitors/:visitorId', async (req, res) => {
    const id = req.params.visitorId as string;
    const found = VISITOR_ID_PATTERN.test(id) ? await visitorWithHistory(db, account(res), id) : null;
    if (!found) throw new AppError('not_found', 'no visitor with this id');
    const intent = profileIntent(found.visitor, now(), await intentWeights(db, account(res)));
    res.json(recordOf(found.visitor, found.sessions, found.links, intent));
  });

  router.get('/internal/visitors', async (req, res) => {
    // The cursor is this list's own (identified, last seen, visitor id), so it is read apart from the limit.
    const { cursor, identified, sort, ...rest } = queryStrings(req.query as Record<string, unknown>, ['limit', 'cursor', 'identified', 'sort']);
    const { limit } = parsePageQuery(rest);
    if (sort !== undefined && sort !== 'last_seen' && sort !== 'score') throw new AppError('invalid_request', 'sort must be last_seen or score');
    const [page, w] = await Promise.all([
      sort === 'score'
        ? visitorPageByScore(db, account(res), {
            limit,
            after: cursor === undefined ? null : decodeVisitorScoreCursor(cursor),
            identified: identifiedFilter(identified),
          }).then((rows) => cutPage(rows, limit, (last) => encodeVisitorScoreCursor({ rank: last.intentRank, id: last.visitorId })))
        : visitorPage(db, account(res), {
            limit,
            after: cursor === undefined ? null : decodeVisitorCursor(cursor),
            identified: identifiedFilter(identified),
          }).then((rows) =>
            cutPage(rows, limit, (last) => encodeVisitorCursor({ identified: last.email !== null, lastSeen: last.lastSeen, id: last.visitorId })),
          ),
      intentWeights(db, account(res)),
    ]);
    const at = now();
    res.json({ items: page.items.map((v) => listItemOf(v, profileIntent(v, at, w))), nextCursor: page.next });
  });
}

const siteId = (req: Request) => {
  const id = req.params.siteId as string;
  if (!isUuid(id)) throw new AppError('invalid_request', 'site id must be a UUID');
  return id;
};

/** A site's last 24 hours and stats, the deletion of its data, and an erased person's. */
function siteRoutes(router: Router, { db, account, now, erasureSecret }: RouteContext & { erasureSecret: string }): void {
  router.get('/internal/sites/:siteId/traffic', async (req, res) => {
    const at = now();
    const { rows, firstPageViewAt } = await siteHours(db, account(res), siteId(req), trafficSince(at));
    res.json({ firstPageViewAt, hours: zeroFilledHours(rows, at) });
  });

  router.get('/internal/sites/:siteId/stats', async (req, res) => {
    res.json(await siteStats(db, account(res), siteId(req), new Date(now().getTime() - 24 * 3_600_000)));
  });

  router.delete('/internal/sites/:siteId', async (req, res) => {
    await deleteSiteData(db, account(res), siteId(req));
    res.status(204).end();
  });

  router.delete('/internal/persons/:email', async (req, res) => {
    const email = normalizeEmail(req.params.email as string);
    if (email === null) throw new AppError('invalid_request', 'email must be a valid email address');
    const erased = await erasePerson(db, account(res), email, erasureHash(erasureSecret, account(res), email));
    // An unsent segment alert naming the person goes too (a sent one's message is already emptied).
    await eraseSegmentEntries(db, account(res), email);
    res.json(erased);
  });
}
