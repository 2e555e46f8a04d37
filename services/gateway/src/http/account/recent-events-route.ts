// GET /account/events/recent: the account's raw events of the last 24 h from Redis, newest first.
import express, { type Router } from 'express';
import { encodeCursor, parsePageQuery } from '@glimpse/http';
import type { RawEventStore } from '../../data/raw-event-store.js';

export function recentEventsRoute({ rawStore }: { rawStore: RawEventStore }): Router {
  const router = express.Router();
  router.get('/account/events/recent', async (req, res) => {
    const { limit, cursor } = parsePageQuery(req.query as Record<string, unknown>);
    const page = await rawStore.recent(res.locals.accountId as string, { limit, cursor });
    res.json({ items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null });
  });
  return router;
}
