// Page rules of the account the gateway names: a path glob (`*` any run of characters, starting
// with '/', at most 256 characters), the event an identified visitor's matching page view becomes,
// once per session (optional: the gateway asks for the workflows add-on when there is one), and a
// weight, the intent points of any visitor's matching page view, once per session. At most
// PAGE_RULES_PER_ACCOUNT per account (100 by default), a cap that holds under concurrent creations
// (createPageRule counts and inserts under the account's lock).
import express, { type Router } from 'express';
import type { Db } from '@glimpse/db/visitors';
import { pageRuleInputSchema, pageRuleUpdateSchema, validPageRulePattern } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { z } from 'zod';
import { isUuid } from '@glimpse/validation';
import { createPageRule, deletePageRule, listPageRules, PAGE_RULES_MAX, reweighPageRule } from '../data/page-rule-repository.js';

function parsed<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success)
    throw new AppError('invalid_request', result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '));
  return result.data;
}

export function pageRulesRouter({ db, maxPerAccount = PAGE_RULES_MAX }: { db: Db; maxPerAccount?: number }): Router {
  const router = express.Router();
  const account = (res: express.Response) => res.locals.accountId as string;
  const ruleId = (req: express.Request) => {
    const id = req.params.ruleId as string;
    if (!isUuid(id)) throw new AppError('not_found', 'no page rule with this id');
    return id;
  };

  router.get('/internal/page-rules', async (_req, res) => {
    res.json({ items: await listPageRules(db, account(res)) });
  });

  router.post('/internal/page-rules', express.json({ limit: '4kb' }), async (req, res) => {
    const input = parsed(pageRuleInputSchema, req.body);
    if (!validPageRulePattern(input.pattern)) throw new AppError('invalid_request', 'pattern: pattern must not hold control characters');
    const rule = await createPageRule(db, account(res), { pattern: input.pattern, event: input.event ?? null, weight: input.weight ?? 0 }, maxPerAccount);
    if (!rule) throw new AppError('limit_reached', `an account has at most ${maxPerAccount} page rules: delete one first`);
    res.status(201).json(rule);
  });

  router.patch('/internal/page-rules/:ruleId', express.json({ limit: '4kb' }), async (req, res) => {
    const id = ruleId(req);
    const rule = await reweighPageRule(db, account(res), id, parsed(pageRuleUpdateSchema, req.body).weight);
    if (!rule) throw new AppError('not_found', 'no page rule with this id');
    res.json(rule);
  });

  router.delete('/internal/page-rules/:ruleId', async (req, res) => {
    if (!(await deletePageRule(db, account(res), ruleId(req)))) throw new AppError('not_found', 'no page rule with this id');
    res.status(204).end();
  });
  return router;
}
