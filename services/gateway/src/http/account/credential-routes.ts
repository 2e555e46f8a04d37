// Event tokens and API keys of the caller's account, straight on Postgres through shared auth.
// The plain token or key is in the creation answer only; lists show prefixes.
import express, { type Response, type Router } from 'express';
import { createApiKey, createEventToken, listApiKeys, listEventTokens, revokeCredential } from '@glimpse/auth';
import type { Db } from '@glimpse/db';
import { parseNewApiKey } from '../../domain/api-key-input.js';
import { jsonBody } from './json-body.js';

const account = (res: Response) => res.locals.accountId as string;

export function credentialRoutes({ db }: { db: Db }): Router {
  const router = express.Router();

  router.post('/account/event-tokens', async (_req, res) => {
    const { id, prefix, secret, createdAt } = await createEventToken(db, account(res));
    res.status(201).json({ id, prefix, token: secret, createdAt });
  });
  router.get('/account/event-tokens', async (_req, res) => {
    res.json({ items: await listEventTokens(db, account(res)) });
  });
  router.delete('/account/event-tokens/:id', async (req, res) => {
    await revokeCredential(db, 'event_token', account(res), req.params.id as string);
    res.status(204).end();
  });

  router.post('/account/api-keys', jsonBody, async (req, res) => {
    const { scopes } = parseNewApiKey(req.body);
    const { id, prefix, secret, createdAt } = await createApiKey(db, account(res), scopes);
    res.status(201).json({ id, prefix, key: secret, scopes, createdAt });
  });
  router.get('/account/api-keys', async (_req, res) => {
    res.json({ items: await listApiKeys(db, account(res)) });
  });
  router.delete('/account/api-keys/:id', async (req, res) => {
    await revokeCredential(db, 'api_key', account(res), req.params.id as string);
    res.status(204).end();
  });
  return router;
}
