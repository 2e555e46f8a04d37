// Segments and alert settings of the account the gateway names: a segment answered with its live
// count, its members a page at a time (best score first), every company key of the account (the
// gateway matches them against industry and size and sends back `keys`), and the account's digest
// time zone and hour.
import express, { type Response, type Router } from 'express';
import type { Db } from '@glimpse/db/visitors';
import { alertMemberOf, alertSettingsSchema, type Segment } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { cutPage, parsePageQuery, queryStrings } from '@glimpse/http';
import { isUuid } from '@glimpse/validation';
import { z } from 'zod';
import { issuesMessage, needsFirmographics, segmentCreateSchema, segmentUpdateSchema, SEGMENT_KEYS_MAX } from '../domain/segment-filter.js';
import {
  accountCompanyKeys,
  countSegment,
  createSegment,
  decodeMemberCursor,
  deleteSegment,
  describeMembers,
  encodeMemberCursor,
  findSegment,
  intentWeights,
  listSegments,
  memberPage,
  SEGMENTS_PER_ACCOUNT,
  updateSegment,
  storeSegmentKeys,
  type SegmentRecord,
} from '../data/segment-repository.js';
import { alertSettingsOf, saveAlertSettings } from '../data/alert-settings.js';

interface SegmentRouteOptions {
  db: Db;
  account: (res: Response) => string;
  json: express.RequestHandler;
  now: () => Date;
  maxPerAccount?: number;
}

/** What the segment routes share: their options, a segment's answer and the segment a path names. */
interface SegmentContext extends Required<SegmentRouteOptions> {
  answer: (s: SegmentRecord) => Promise<Segment>;
  segment: (res: Response, id: string) => Promise<SegmentRecord>;
}

export function segmentRoutes(options: SegmentRouteOptions): Router {
  const { db, account, now } = options;
  const c: SegmentContext = {
    maxPerAccount: SEGMENTS_PER_ACCOUNT,
    ...options,
    answer: async (s) => ({
      id: s.id,
      name: s.name,
      kind: s.kind,
      filter: s.filter,
      alert_window_hours: s.alertWindowHours,
      count: await countSegment(db, s, now()),
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
      evaluated_at: s.evaluatedAt?.toISOString() ?? null,
    }),
    segment: async (res, id) => {
      const found = isUuid(id) ? await findSegment(db, account(res), id) : null;
      if (!found) throw new AppError('not_found', 'no segment with this id');
      return found;
    },
  };
  const router = express.Router();
  segmentReads(router, c);
  segmentWrites(router, c);
  memberRoutes(router, c);
  alertSettingsRoutes(router, c);
  return router;
}

function segmentReads(router: Router, { db, account, answer, segment }: SegmentContext): void {
  router.get('/internal/segments', async (_req, res) => {
    const items = await listSegments(db, account(res));
    res.json({ items: await Promise.all(items.map(answer)) });
  });

  router.get('/internal/segments/company-keys', async (_req, res) => {
    res.json({ keys: await accountCompanyKeys(db, account(res), SEGMENT_KEYS_MAX) });
  });

  router.get('/internal/segments/:id', async (req, res) => {
    res.json(await answer(await segment(res, req.params.id as string)));
  });

  // The gateway's refresh of the companies matching industry and size: the filter, then the keys.
  router.get('/internal/segments/:id/filter', async (req, res) => {
    res.json({ filter: (await segment(res, req.params.id as string)).filter });
  });
}

function segmentWrites(router: Router, { db, account, json, maxPerAccount, answer, segment }: SegmentContext): void {
  router.post('/internal/segments', json, async (req, res) => {
    const parsed = segmentCreateSchema.safeParse(req.body);
    if (!parsed.success) throw new AppError('invalid_request', issuesMessage(parsed.error));
    const b = parsed.data;
    const keys = needsFirmographics(b.filter) ? (b.keys ?? []) : null;
    const created = await createSegment(
      db,
      account(res),
      { name: b.name, kind: b.kind, filter: b.filter, alertWindowHours: b.alert_window_hours ?? 24, keys },
      maxPerAccount,
    );
    res.status(201).json(await answer(created));
  });

  router.patch('/internal/segments/:id', json, async (req, res) => {
    const parsed = segmentUpdateSchema.safeParse(req.body);
    if (!parsed.success) throw new AppError('invalid_request', issuesMessage(parsed.error));
    const b = parsed.data;
    const current = await segment(res, req.params.id as string);
    const filter = b.filter ?? current.filter;
    const keys = needsFirmographics(filter) ? (b.keys !== undefined ? (b.keys ?? []) : (current.keys ?? [])) : null;
    const updated = await updateSegment(db, account(res), current.id, { name: b.name, filter: b.filter, alertWindowHours: b.alert_window_hours, keys });
    if (!updated) throw new AppError('not_found', 'no segment with this id');
    res.json(await answer(updated));
  });

  router.put('/internal/segments/:id/keys', json, async (req, res) => {
    const parsed = z.strictObject({ keys: z.array(z.string().min(1).max(300)).max(SEGMENT_KEYS_MAX) }).safeParse(req.body);
    if (!parsed.success) throw new AppError('invalid_request', issuesMessage(parsed.error));
    const s = await segment(res, req.params.id as string);
    if (!(await storeSegmentKeys(db, s.accountId, s.id, needsFirmographics(s.filter) ? parsed.data.keys : null)))
      throw new AppError('not_found', 'no segment with this id');
    res.status(204).end();
  });

  router.delete('/internal/segments/:id', async (req, res) => {
    const id = req.params.id as string;
    if (!isUuid(id) || !(await deleteSegment(db, account(res), id))) throw new AppError('not_found', 'no segment with this id');
    res.status(204).end();
  });
}

function memberRoutes(router: Router, { db, now, segment }: SegmentContext): void {
  router.get('/internal/segments/:id/members', async (req, res) => {
    const s = await segment(res, req.params.id as string);
    const { cursor, ...rest } = queryStrings(req.query as Record<string, unknown>, ['limit', 'cursor']);
    const { limit } = parsePageQuery(rest);
    const at = now();
    const rows = await memberPage(db, s, at, limit, cursor === undefined ? null : decodeMemberCursor(cursor));
    const page = cutPage(rows, limit, (last) => encodeMemberCursor({ rank: last.rank, key: last.key }));
    const members = await describeMembers(db, s, page.items, at, await intentWeights(db, s.accountId));
    res.json({
      items: members.map(alertMemberOf),
      nextCursor: page.next,
    });
  });
}

function alertSettingsRoutes(router: Router, { db, account, json }: SegmentContext): void {
  router.get('/internal/alert-settings', async (_req, res) => {
    res.json(await alertSettingsOf(db, account(res)));
  });

  router.put('/internal/alert-settings', json, async (req, res) => {
    const parsed = alertSettingsSchema.safeParse(req.body);
    if (!parsed.success) throw new AppError('invalid_request', issuesMessage(parsed.error));
    res.json(await saveAlertSettings(db, account(res), parsed.data));
  });
}
