// Event tokens and API keys of the caller's account, straight on Postgres through shared auth.
// The plain token or key is in the creation answer only; lists show prefixes, a page at a time.
// An account has at most its caps of active tokens and keys (409 limit_reached past them).
import express, { type Response, type Router } from 'express';
import { apiKeyPage, createApiKey, createEventToken, eventTokenPage, revokeCredential, type CredentialCaps } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import { encodeCursor, parsePageQuery } from '@glimpse/http';
import { parseNewApiKey } from '../../domain/api-key-input.js';
import { jsonBody } from './json-body.js';

const account = (res: Response) => res.locals.accountId as string;

export function credentialRoutes({ db, caps = {} }: { db: Db; caps?: Partial<CredentialCaps> }): Router {
  const router = express.Router();
  const pageQuery = (req: express.Request) => {
    const { limit, cursor } = parsePageQuery(req.query as Record<string, unknown>);
    return { limit, after: cursor };
  };
  const page = <T>(p: { items: T[]; next: { at: Date; id: string } | null }) => ({ items: p.items, nextCursor: p.next ? encodeCursor(p.next) : null });

  router.post('/account/event-tokens', async (_req, res) => {
    const { id, prefix, secret, createdAt } = await createEventToken(db, account(res), caps);
    res.status(201).json({ id, prefix, token: secret, createdAt });
  });
  router.get('/account/event-tokens', async (req, res) => {
    res.json(page(await eventTokenPage(db, account(res), pageQuery(req))));
  });
  router.delete('/account/event-tokens/:id', async (req, res) => {
    await revokeCredential(db, 'event_token', account(res), req.params.id as string);
    res.status(204).end();
  });

  router.post('/account/api-keys', jsonBody, async (req, res) => {
    const { scopes } = parseNewApiKey(req.body);
    const { id, prefix, secret, createdAt } = await createApiKey(db, account(res), scopes, caps);
    res.status(201).json({ id, prefix, key: secret, scopes, createdAt });
  });
  router.get('/account/api-keys', async (req, res) => {
    res.json(page(await apiKeyPage(db, account(res), pageQuery(req))));
  });
  router.delete('/account/api-keys/:id', async (req, res) => {
    await revokeCredential(db, 'api_key', account(res), req.params.id as string);
    res.status(204).end();
  });
  return router;
}
