// The playbook service's internal HTTP API, behind the gateway's management API: playbooks,
// their enrollments and the event catalog of the account the gateway names.
import type { Request, Router } from 'express';
import type { Db } from '@glimpse/db/playbook';
import { encodeCursor, gatewayInternalRouter, parsePageQuery, type GatewayInternalRouter } from '@glimpse/http';
import { createPlaybook, deletePlaybook, enrollmentPage, eventCatalogPage, getPlaybook, listPlaybooks, updatePlaybook } from '../wiring/playbooks.js';
import { limitsWith, type PlaybookLimits } from '../domain/limits.js';
import { encodeCatalogCursor, parseCatalogQuery } from './catalog-query.js';
import { type ErasedEmail, parseEmailParam, parseSuppressionInput } from '../domain/persons.js';
import { dryRunEvent, erasePerson, getReceipt, suppressPerson, suppressionPage, unsuppressPerson } from '../wiring/persons-and-events.js';
import { parseDryRunEvent, parseNewPlaybook, parsePlaybookChanges } from '../domain/playbook-input.js';
import { parseEnrollmentQuery } from './enrollment-query.js';

export interface InternalRouterOptions {
  db: Db;
  /** The accepted callers' token digests (INTERNAL_TOKENS): the gateway only. */
  internalTokens: Partial<Record<string, string>>;
  erasedEmail: ErasedEmail;
  /** What one account may have (the service's configuration; the defaults otherwise). */
  limits?: Partial<PlaybookLimits>;
}

export function internalRouter({ db, internalTokens, erasedEmail, limits: given = {} }: InternalRouterOptions): Router {
  const limits = limitsWith(given);
  const { router, json, account } = gatewayInternalRouter(internalTokens);
  const routes: Routes = { router, json, account, db, limits };
  playbookRoutes(routes);
  eventRoutes(routes);
  personRoutes(routes, erasedEmail);
  return router;
}

/** What each group of routes is added with: the router, its JSON body parser and the account the gateway names. */
interface Routes extends GatewayInternalRouter {
  db: Db;
  limits: PlaybookLimits;
}

/** Playbooks (list, create, read, change, delete) and a playbook's enrollments. */
function playbookRoutes({ router, json, account, db, limits }: Routes): void {
  const caps = {
    maxPerAccount: limits.playbooksPerAccount,
    maxTriggers: limits.triggersPerPlaybook,
    maxExits: limits.exitsPerPlaybook,
    maxCatalogNames: limits.catalogNamesPerAccount,
  };
  const playbookId = (req: Request) => req.params.playbookId as string;
  router.get('/internal/playbooks', async (_req, res) => {
    res.json({ items: await listPlaybooks(db, account(res)) });
  });
  router.post('/internal/playbooks', json, async (req, res) => {
    res.status(201).json(await createPlaybook(db, { accountId: account(res), ...parseNewPlaybook(req.body) }, caps));
  });
  router.get('/internal/playbooks/:playbookId', async (req, res) => {
    res.json(await getPlaybook(db, account(res), playbookId(req)));
  });
  router.patch('/internal/playbooks/:playbookId', json, async (req, res) => {
    res.json(await updatePlaybook(db, { accountId: account(res), playbookId: playbookId(req), ...parsePlaybookChanges(req.body) }, caps));
  });
  router.delete('/internal/playbooks/:playbookId', async (req, res) => {
    await deletePlaybook(db, account(res), playbookId(req));
    res.status(204).end();
  });
  router.get('/internal/playbooks/:playbookId/enrollments', async (req, res) => {
    const page = await enrollmentPage(db, account(res), playbookId(req), parseEnrollmentQuery(req.query as Record<string, unknown>));
    res.json({ items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null });
  });
}

/** The event catalog, the dry run of an event, and an event's receipt (catalog and dry-run before :eventId). */
function eventRoutes({ router, json, account, db, limits }: Routes): void {
  router.get('/internal/events/catalog', async (req, res) => {
    const query = parseCatalogQuery(req.query as Record<string, unknown>);
    const page = await eventCatalogPage(db, account(res), { ...query, maxNames: limits.catalogNamesPerAccount });
    res.json({
      items: page.items,
      nextCursor: page.next === null ? null : encodeCatalogCursor(page.next),
      names: page.size,
      maxNames: page.maxNames,
      full: page.full,
      refused: page.refused,
    });
  });
  router.post('/internal/events/dry-run', json, async (req, res) => {
    res.json(await dryRunEvent(db, account(res), parseDryRunEvent(req.body), { maxCatalogNames: limits.catalogNamesPerAccount }));
  });
  router.get('/internal/events/:eventId', async (req, res) => {
    res.json(await getReceipt(db, account(res), req.params.eventId as string));
  });
}

/** Suppressions (add, list, remove) and a person's erasure. */
function personRoutes({ router, json, account, db, limits }: Routes, erasedEmail: ErasedEmail): void {
  router.post('/internal/suppressions', json, async (req, res) => {
    const { created, suppression } = await suppressPerson(db, account(res), parseSuppressionInput(req.body).email, {
      maxPerAccount: limits.suppressionsPerAccount,
    });
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
}
