// Email-link tokens for campaign links (?gl=<token>), which identify the visitor who follows one as
// the given person (method email_link). A token carries its account, email, expiry and id; nothing
// is stored at issue. Revoking one (by id) or all the account's tokens issued so far writes a row
// of identity.link_token_revocations, which POST /collect checks.
import express, { type Response, type Router } from 'express';
import { LINK_TOKEN_TTL_DAYS, linkTokenInputSchema } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { LinkTokenRevocations } from '../../data/link-token-revocations.js';
import { LINK_TOKEN_ID_PATTERN, type LinkTokens } from '../../domain/link-token.js';
import { revokeAll, revokeOne } from '../../domain/link-token-revocation.js';
import { jsonBody } from './json-body.js';

const account = (res: Response) => res.locals.accountId as string;

export function linkTokenRoutes({ linkTokens, revocations }: { linkTokens: LinkTokens; revocations: LinkTokenRevocations }): Router {
  const router = express.Router();
  router.post('/account/link-tokens', jsonBody, (req, res) => {
    const parsed = linkTokenInputSchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError('invalid_request', issue.message);
    }
    const { token, id, expiresAt } = linkTokens.issue(account(res), parsed.data.email, parsed.data.ttl_days ?? LINK_TOKEN_TTL_DAYS.default);
    res.status(201).json({ token, id, expiresAt: expiresAt.toISOString() });
  });
  router.delete('/account/link-tokens/:id', async (req, res) => {
    const id = req.params.id as string;
    if (!LINK_TOKEN_ID_PATTERN.test(id)) throw new AppError('invalid_request', 'id must be the 22-character id answered with the token');
    await revocations.revoke(account(res), [revokeOne(id, new Date())]);
    res.status(204).end();
  });
  router.delete('/account/link-tokens', async (_req, res) => {
    await revocations.revoke(account(res), [revokeAll(new Date())]);
    res.status(204).end();
  });
  return router;
}
