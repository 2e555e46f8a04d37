// The operator API under /operator: what the installation's operator does to accounts (creating and
// deleting them, their workflows add-on, their credit limit and usage, and their management API
// acted on in their place, see operator-account-routes.ts), not what an account does to itself; and
// to the installation's data: imports (operator-import-routes.ts), IP datasets and network types
// (operator-ip-data-routes.ts).
// One credential, the operator token (OPERATOR_TOKEN), compared in constant time; without it
// configured the prefix is not mounted at all, so /operator answers 404 like any path that does not
// exist. Not in the public OpenAPI document: customers read that one.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import { accountAddons, parseBearer, setWorkflowsAddon } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import { AppError } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import type { AddressLimiter } from '../data/address-limiter.js';
import { refusal, setRateLimitHeaders } from './rate-limit.js';
import {
  operatorAccountId,
  operatorAccountLifecycle,
  operatorActingRouter,
  operatorCreditRoutes,
  type OperatorAccountOptions,
} from './operator-account-routes.js';
import { operatorImportRoutes } from './operator-import-routes.js';
import { operatorIpDataRoutes } from './operator-ip-data-routes.js';
import type { ImportForwarder } from '../data/import-forwarder.js';

export interface OperatorRouterOptions {
  /** The operator token (at least 16 characters; production wants 32, see config.ts). */
  token: string;
  db: Db;
  /** Failed operator checks spend the address's budget of credential checks, as made-up API keys do. */
  addressLimiter: AddressLimiter;
  logger: Logger;
  /** What creating, deleting, crediting and acting for accounts needs; without it only the add-on routes exist. */
  accounts?: Omit<OperatorAccountOptions, 'db' | 'logger'> & { imports?: ImportForwarder };
}

/** An account as the operator sees it: its name and its add-ons. */
export interface OperatorAccount {
  id: string;
  name: string;
  addons: { workflows: boolean };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Checks the bearer token against the operator token. Both sides are hashed first, so the
 * comparison is of equal lengths and takes the same time whatever was sent. An address that has
 * spent its budget of credential checks is refused before any comparison.
 */
export function operatorAuth(token: string, limiter: AddressLimiter): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const budget = limiter.peek(req.ip);
    if (budget.remaining < 1) {
      setRateLimitHeaders(res, budget);
      throw refusal(budget, 'too many credential checks from this address; slow down and retry');
    }
    const sent = parseBearer(req.headers.authorization);
    if (sent && timingSafeEqual(digest(sent), expected)) return next();
    setRateLimitHeaders(res, limiter.take(req.ip));
    throw new AppError('unauthorized', sent ? 'invalid operator token' : 'missing bearer credential: send Authorization: Bearer <operator token>');
  };
}

async function operatorAccount(db: Db, id: string): Promise<OperatorAccount> {
  const account = await accountAddons(db, id);
  if (!account) throw new AppError('not_found', `account ${id} does not exist`);
  return { id: account.id, name: account.name, addons: { workflows: account.workflows } };
}

export function operatorRouter({ token, db, addressLimiter, logger, accounts }: OperatorRouterOptions): Router {
  const router = express.Router();
  router.use(
    '/operator',
    (_req, res, next) => {
      // Answers about accounts' entitlements: never kept by a shared cache.
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
    operatorAuth(token, addressLimiter),
  );

  router.get('/operator/accounts/:id', async (req, res) => {
    res.json(await operatorAccount(db, operatorAccountId(req)));
  });

  // PUT grants, DELETE removes; both idempotent, both answer the account as it is afterwards.
  const setWorkflows =
    (workflows: boolean): RequestHandler =>
    async (req, res) => {
      const id = operatorAccountId(req);
      await setWorkflowsAddon(db, id, workflows);
      // An audit line: account ids only, never a credential.
      logger.info({ accountId: id, addon: 'workflows', granted: workflows }, 'operator changed an add-on');
      res.json(await operatorAccount(db, id));
    };
  router.put('/operator/accounts/:id/addons/workflows', setWorkflows(true));
  router.delete('/operator/accounts/:id/addons/workflows', setWorkflows(false));
  if (accounts) {
    router.use(operatorAccountLifecycle({ db, producer: accounts.producer, logger }));
    router.use(operatorActingRouter({ ...accounts, db, logger }));
    router.use(operatorCreditRoutes({ db, enrichment: accounts.enrichment, logger }));
    if (accounts.imports) router.use(operatorImportRoutes({ imports: accounts.imports, logger }));
    router.use(operatorIpDataRoutes({ visitors: accounts.visitors, logger }));
  }
  return router;
}
