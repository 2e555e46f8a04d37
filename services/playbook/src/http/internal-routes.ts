// The playbook service's internal HTTP API, behind the gateway's management API: playbooks,
// their enrollments and the event catalog of the account the gateway names.
import express, { type Router } from 'express';
import type { Db } from '@glimpse/db';
import { encodeCursor, internalCallers, parsePageQuery } from '@glimpse/http';
import { createPlaybook, deletePlaybook, enrollmentPage, eventCatalogUsage, getPlaybook, listPlaybooks, updatePlaybook } from '../domain/manage-playbooks.js';
import { dryRunEvent } from '../domain/dry-run.js';
import { getReceipt } from '../domain/receipts.js';
import { erasePerson, type ErasedEmail, parseEmailParam, parseSuppressionInput, suppressPerson, suppressionPage, unsuppressPerson } from '../domain/persons.js';
import { parseDryRunEvent, parseNewPlaybook, parsePlaybookChanges } from '../domain/playbook-input.js';
import { parseEnrollmentQuery } from './enrollment-query.js';

export function internalRouter({ db, internalTokens, playbooksPerAccount, erasedEmail }: { db: Db; internalTokens: Partial<Record<string, string>>; playbooksPerAccount?: number; erasedEmail: ErasedEmail }): Router {
  const router = express.Router();
  // The gateway has already enforced 32 KB on the client's body; this only bounds what it forwards.
  const json = express.json({ limit: '64kb', strict: false });
  router.use('/internal', internalCallers({ tokens: internalTokens, routes: { gateway: '*' } }));
  const account = (res: express.Response) => res.locals.accountId as string;
  const playbookId = (req: express.Request) => req.params.playbookId as string;

  router.get('/internal/playbooks', async (_req, res) => {
    res.json({ items: await listPlaybooks(db, account(res)) });
  });
  router.post('/internal/playbooks', json, async (req, res) => {
    res.status(201).json(await createPlaybook(db, { accountId: account(res), ...parseNewPlaybook(req.body) }, { maxPerAccount: playbooksPerAccount }));
  });
  router.get('/internal/playbooks/:playbookId', async (req, res) => {
    res.json(await getPlaybook(db, account(res), playbookId(req)));
  });
  router.patch('/internal/playbooks/:playbookId', json, async (req, res) => {
    res.json(await updatePlaybook(db, { accountId: account(res), playbookId: playbookId(req), ...parsePlaybookChanges(req.body) }));
  });
  router.delete('/internal/playbooks/:playbookId', async (req, res) => {
    await deletePlaybook(db, account(res), playbookId(req));
    res.status(204).end();
  });
  router.get('/internal/playbooks/:playbookId/enrollments', async (req, res) => {
    const page = await enrollmentPage(db, account(res), playbookId(req), parseEnrollmentQuery(req.query as Record<string, unknown>));
    res.json({ items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null });
  });
  router.get('/internal/events/catalog', async (_req, res) => {
    res.json({ items: await eventCatalogUsage(db, account(res)) });
  });
  router.post('/internal/events/dry-run', json, async (req, res) => {
    res.json(await dryRunEvent(db, account(res), parseDryRunEvent(req.body)));
  });
  router.get('/internal/events/:eventId', async (req, res) => {
    res.json(await getReceipt(db, account(res), req.params.eventId as string));
  });
  router.post('/internal/suppressions', json, async (req, res) => {
    const { created, suppression } = await suppressPerson(db, account(res), parseSuppressionInput(req.body).email);
    res.status(created ? 201 : 200).json(suppression);
  });
  router.get('/internal/suppressions', async (req, res) => {
    const { limit, cursor } = parsePageQuery(req.query as Record<string, unknown>);
    const page = await suppressionPage(db, account(res), { limit, after: cursor });
    res.json({ items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null });
  });
  router.delete('/internal/suppressions/:email', async (req, res) => {
    await unsuppressPerson(db, account(res), parseEmailParam(req.params.email as string));
    res.status(204).end();
  });
  router.delete('/internal/persons/:email', async (req, res) => {
    res.json(await erasePerson(db, erasedEmail, account(res), parseEmailParam(req.params.email as string)));
  });
  return router;
}
