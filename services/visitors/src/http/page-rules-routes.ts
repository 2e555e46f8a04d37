// Page rules of the account the gateway names: a path glob (`*` any run of characters, starting
// with '/', at most 256 characters) and the event an identified visitor's matching page view
// becomes, once per session. At most PAGE_RULES_PER_ACCOUNT per account (100 by default), a cap
// that holds under concurrent creations (createPageRule counts and inserts under the account's lock).
import express, { type Router } from 'express';
import type { Db } from '@glimpse/db/visitors';
import { AppError } from '@glimpse/errors';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import { z } from 'zod';
import { isUuid } from '@glimpse/validation';
import { PAGE_RULE_PATTERN_MAX, validPageRulePattern } from '../domain/page-rule-pattern.js';
import { createPageRule, deletePageRule, listPageRules, PAGE_RULES_MAX } from '../data/page-rule-repository.js';

const ruleBody = z.object({
  pattern: z
    .string()
    .refine(validPageRulePattern, `pattern must start with '/' and be at most ${PAGE_RULE_PATTERN_MAX} characters (use * for any run of characters)`),
  event: z.string().regex(EVENT_NAME_PATTERN, 'event must be 1-64 characters of letters, digits, _ . : -'),
});

export function pageRulesRouter({ db, maxPerAccount = PAGE_RULES_MAX }: { db: Db; maxPerAccount?: number }): Router {
  const router = express.Router();
  const account = (res: express.Response) => res.locals.accountId as string;

  router.get('/internal/page-rules', async (_req, res) => {
    res.json({ items: await listPageRules(db, account(res)) });
  });

  router.post('/internal/page-rules', express.json({ limit: '4kb' }), async (req, res) => {
    const parsed = ruleBody.strict().safeParse(req.body);
    if (!parsed.success)
      throw new AppError('invalid_request', parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '));
    const rule = await createPageRule(db, account(res), parsed.data, maxPerAccount);
    if (!rule) throw new AppError('limit_reached', `an account has at most ${maxPerAccount} page rules: delete one first`);
    res.status(201).json(rule);
  });

  router.delete('/internal/page-rules/:ruleId', async (req, res) => {
    const id = req.params.ruleId as string;
    if (!isUuid(id) || !(await deletePageRule(db, account(res), id))) throw new AppError('not_found', 'no page rule with this id');
    res.status(204).end();
  });
  return router;
}
