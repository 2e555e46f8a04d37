// POST /account/link-tokens: a token for campaign links (?gl=<token>) that identifies the visitor
// who follows it as the given person (method email_link). Nothing is stored: the token carries it.
import express, { type Response, type Router } from 'express';
import { LINK_TOKEN_TTL_DAYS, linkTokenInputSchema } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { LinkTokens } from '../../domain/link-token.js';
import { jsonBody } from './json-body.js';

const account = (res: Response) => res.locals.accountId as string;

export function linkTokenRoutes({ linkTokens }: { linkTokens: LinkTokens }): Router {
  const router = express.Router();
  router.post('/account/link-tokens', jsonBody, (req, res) => {
    const parsed = linkTokenInputSchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError('invalid_request', issue.message);
    }
    const { token, expiresAt } = linkTokens.issue(account(res), parsed.data.email, parsed.data.ttl_days ?? LINK_TOKEN_TTL_DAYS.default);
    res.status(201).json({ token, expiresAt: expiresAt.toISOString() });
  });
  return router;
}
