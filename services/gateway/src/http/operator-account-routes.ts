// The operator's account work under /operator (the CLI through the front door):
// creating and deleting accounts (their event on the accounts topic, through the identity outbox),
// and the account's own management API acted on by the operator, /operator/accounts/{id}/account/…:
// the very routers /account mounts (credentials, playbooks, suppressions, events, usage, sites, segments), so
// an operator's playbook, token or site meets the same rules and the same configured caps as the
// account's own API key does; and the account's credit limit and all-time usage, the enrichment
// service's. Mounted behind operatorAuth (operator-routes.ts); not in the public OpenAPI document.
import express, { type Request, type RequestHandler, type Router } from 'express';
import { accountAddons, accountEventsPending, createAccount, deleteAccount, publishAccountEvents, type CredentialCaps } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import { AppError } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import type { BatchingProducer } from '@glimpse/messaging';
import { isUuid } from '@glimpse/validation';
import type { EnrichmentClient } from '../data/enrichment-client.js';
import type { PlaybookClient } from '../data/playbook-client.js';
import type { RawEventStore } from '../data/raw-event-store.js';
import type { VisitorsClient } from '../data/visitors-client.js';
import type { WebhooksClient } from '../data/webhooks-client.js';
import { relay } from '../data/internal-service.js';
import { credentialRoutes } from './account/credential-routes.js';
import { forwardedRoutes, type ForwardedRoutesOptions } from './account/forwarded-routes.js';
import { jsonBody } from './account/json-body.js';
import { siteRoutes, type TagAsset } from './account/site-routes.js';
import { segmentRoutes } from './account/segment-routes.js';
import { requireWorkflows, WORKFLOWS_PATHS } from './account/workflows-addon.js';

/** What the operator acts on an account with: what /account has, minus its authentication and rate limits. */
export interface OperatorAccountOptions {
  db: Db;
  /** Publishes the account's event at once (else the gateway's outbox publisher sends it within its interval). */
  producer: BatchingProducer;
  playbooks: PlaybookClient;
  enrichment: EnrichmentClient;
  webhooks: WebhooksClient;
  visitors: VisitorsClient;
  rawStore: RawEventStore;
  /** An erasure revokes the person's link tokens. */
  linkTokens: ForwardedRoutesOptions['linkTokens'];
  sites: { tag: () => TagAsset; maxPerAccount: number; publicUrl?: string };
  credentialCaps?: Partial<CredentialCaps>;
  logger: Logger;
}

/** Where an account's event is: on the accounts topic, or in the outbox for the gateway's publisher. */
export type AccountEventDelivery = 'published' | 'queued';

const PUBLISH_ROUNDS = 10;
const ROUND_PAUSE_MS = 200;

/**
 * Publishes the pending account events (the whole outbox, in order) and says whether this account's
 * are out. The gateway's own publisher may hold the lock at that moment: tried a few rounds. A
 * failure leaves the event queued; the answer says so rather than failing a creation that happened.
 */
async function publishNow(db: Db, producer: BatchingProducer, accountId: string, logger: Logger): Promise<AccountEventDelivery> {
  try {
    for (let round = 0; round < PUBLISH_ROUNDS; round++) {
      await publishAccountEvents(db, producer, { limit: 1000 });
      if ((await accountEventsPending(db, accountId)) === 0) return 'published';
      await new Promise((r) => setTimeout(r, ROUND_PAUSE_MS));
    }
  } catch (err) {
    logger.warn({ accountId, err: (err as Error).message }, 'account event not published now; the outbox publisher sends it');
  }
  return 'queued';
}

function newAccountInput(body: unknown): { name: string; workflows: boolean } {
  const { name, workflows = false } = (body ?? {}) as { name?: unknown; workflows?: unknown };
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 200)
    throw new AppError('invalid_request', 'name must be a non-empty string of at most 200 characters');
  if (typeof workflows !== 'boolean') throw new AppError('invalid_request', 'workflows must be true or false');
  return { name, workflows };
}

/** The account id of an /operator/accounts/{id} path, lower-cased; 400 unless a UUID. */
export function operatorAccountId(req: Request): string {
  const id = req.params.id as string;
  if (!isUuid(id)) throw new AppError('invalid_request', 'the account id must be a UUID');
  return id.toLowerCase();
}

/** POST /operator/accounts and DELETE /operator/accounts/{id}: the account and its event, in one transaction. */
export function operatorAccountLifecycle({ db, producer, logger }: Pick<OperatorAccountOptions, 'db' | 'producer' | 'logger'>): Router {
  const router = express.Router();
  router.post('/operator/accounts', jsonBody, async (req, res) => {
    const { name, workflows } = newAccountInput(req.body);
    const account = await createAccount(db, name, { workflows });
    logger.info({ accountId: account.id, workflows }, 'operator created an account');
    const event = await publishNow(db, producer, account.id, logger);
    res.status(201).json({ id: account.id, name: account.name, addons: { workflows: account.workflows }, event });
  });
  router.delete('/operator/accounts/:id', async (req, res) => {
    const { id, deletedAt } = await deleteAccount(db, operatorAccountId(req));
    logger.info({ accountId: id }, 'operator deleted an account');
    const event = await publishNow(db, producer, id, logger);
    res.json({ id, deleted: true, deletedAt, event });
  });
  return router;
}

/** Lets through the paths of an account that exists (404 otherwise), its id and add-on in res.locals. */
function existingAccount(db: Db): RequestHandler {
  return async (req, res, next) => {
    const account = await accountAddons(db, operatorAccountId(req));
    if (!account) throw new AppError('not_found', `account ${req.params.id as string} does not exist`);
    res.locals.accountId = account.id;
    res.locals.workflows = account.workflows;
    next();
  };
}

/**
 * /operator/accounts/{id}/account/…: the account's management API with the operator in the
 * account's place. The account must exist (404 otherwise, as an unknown account's key would be
 * 401); its workflows add-on is read fresh, and the add-on's paths refuse without it, as on /account.
 */
export function operatorActingRouter({
  db,
  playbooks,
  enrichment,
  webhooks,
  visitors,
  rawStore,
  linkTokens,
  sites,
  credentialCaps,
}: OperatorAccountOptions): Router {
  const router = express.Router();
  router.use('/operator/accounts/:id/account', existingAccount(db));
  // The /account routers match on /account/…: below this mount point that is what is left of the path.
  const acting = express.Router();
  acting.use(WORKFLOWS_PATHS, requireWorkflows);
  acting.post('/account/event-tokens', requireWorkflows);
  acting.use(credentialRoutes({ db, caps: credentialCaps }));
  acting.use(forwardedRoutes({ playbooks, enrichment, webhooks, visitors, rawStore, linkTokens }));
  acting.use(siteRoutes({ db, visitors, tag: sites.tag, maxSitesPerAccount: sites.maxPerAccount, publicUrl: sites.publicUrl }));
  acting.use(segmentRoutes({ visitors, enrichment }));
  router.use('/operator/accounts/:id', acting);
  return router;
}

/**
 * PUT /operator/accounts/{id}/credits ({credits}: a whole number, or null for no limit) and GET
 * /operator/accounts/{id}/usage (all time): the account's credit limit and what it has been billed,
 * which the enrichment service keeps and checks. The operator's only, not on /account: an account
 * must not raise its own limit. A limit set is logged (account id and limit) as an audit line.
 */
export function operatorCreditRoutes({ db, enrichment, logger }: Pick<OperatorAccountOptions, 'db' | 'enrichment' | 'logger'>): Router {
  const router = express.Router();
  const account = existingAccount(db);
  router.put('/operator/accounts/:id/credits', account, jsonBody, async (req, res) => {
    const accountId = res.locals.accountId as string;
    const answer = await enrichment.setCreditLimit(accountId, req.body);
    if (answer.status === 200) logger.info({ accountId, credits: (answer.body as { credits: number | null }).credits }, 'operator set a credit limit');
    relay(res, answer);
  });
  router.get('/operator/accounts/:id/usage', account, async (_req, res) => relay(res, await enrichment.usageTotals(res.locals.accountId as string)));
  return router;
}
