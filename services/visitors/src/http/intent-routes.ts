// The account's intent settings: GET /internal/intent (the defaults until changed) and PUT (the
// fields sent change, the others keep their values; a change marks the account for re-scoring).
import type { Router, RequestHandler, Response } from 'express';
import express from 'express';
import type { Db } from '@glimpse/db/visitors';
import { intentSettingsInputSchema, type IntentSettingsView } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { readIntentSettings, writeIntentSettings, type StoredIntentSettings } from '../data/intent-repository.js';

const view = (s: StoredIntentSettings): IntentSettingsView => ({
  half_life_days: s.halfLifeDays,
  page_view_weight: s.pageViewWeight,
  session_weight: s.sessionWeight,
  engaged_minute_weight: s.engagedMinuteWeight,
  event_weights: s.eventWeights,
  updated_at: s.updatedAt,
  rescored_at: s.rescoredAt,
});

export function intentRoutes({ db, account, json }: { db: Db; account: (res: Response) => string; json: RequestHandler }): Router {
  const router = express.Router();
  router.get('/internal/intent', async (_req, res) => {
    res.json(view(await readIntentSettings(db, account(res))));
  });
  router.put('/internal/intent', json, async (req, res) => {
    const parsed = intentSettingsInputSchema.safeParse(req.body);
    if (!parsed.success)
      throw new AppError('invalid_request', parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '));
    const input = parsed.data;
    const current = await readIntentSettings(db, account(res));
    const saved = await writeIntentSettings(db, account(res), {
      halfLifeDays: input.half_life_days ?? current.halfLifeDays,
      pageViewWeight: input.page_view_weight ?? current.pageViewWeight,
      sessionWeight: input.session_weight ?? current.sessionWeight,
      engagedMinuteWeight: input.engaged_minute_weight ?? current.engagedMinuteWeight,
      eventWeights: input.event_weights ?? current.eventWeights,
    });
    res.json(view(saved));
  });
  return router;
}
