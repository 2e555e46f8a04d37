// GET /account/events/recent: the account's raw events of the last 24 h from Redis, newest first,
// with how many raw copies its budget dropped in that time.
import express, { type Router } from 'express';
import { parsePageQuery, queryStrings } from '@glimpse/http';
import type { RawEventStore } from '../../data/raw-event-store.js';

export function recentEventsRoute({ rawStore }: { rawStore: RawEventStore }): Router {
  const router = express.Router();
  router.get('/account/events/recent', async (req, res) => {
    // This list's cursor is a position in Redis (not a time and an id): the store reads it.
    const { limit, cursor } = queryStrings(req.query as Record<string, unknown>, ['limit', 'cursor']);
    const page = await rawStore.recent(res.locals.accountId as string, {
      limit: parsePageQuery(limit === undefined ? {} : { limit }).limit,
      cursor: cursor ?? null,
    });
    res.json({ items: page.items, nextCursor: page.next, dropped: page.dropped });
  });
  return router;
}
