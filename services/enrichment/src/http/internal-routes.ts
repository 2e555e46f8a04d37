// The enrichment service's HTTP surface. It is internal: each caller proves itself with its own
// internal token (INTERNAL_ROUTES says which routes each may call), naming the account in a header.
import express, { type Request, type Response, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { INTERNAL_HEADERS, internalCallers, type InternalRouteTable } from '@glimpse/http';
import { CREDITS_HEADER, enrichBulk, enrichPerson, visitorDetails, type Enriched, type LookupDeps } from '../domain/lookups.js';
import type { Db } from '@glimpse/db/enrichment';
import { enrichCompaniesBulk, enrichCompany, lookupCompanies, type CompanyStore } from '../domain/companies.js';
import { accountUsage, periodUsage, type UsageStore } from '../domain/usage.js';
import { parseCreditLimitBody } from '../domain/credit-limit.js';
import { normalizeEmail } from '../domain/identifiers.js';
import { disclosePerson, type DisclosureDeps } from '../domain/person-disclosure.js';
import { setCreditLimit } from '../data/credit-repository.js';
import { usageTotals } from '../data/usage-repository.js';
import { isDatabaseUnavailable } from '../data/database-errors.js';
import { erasePersonOfAccount } from '../data/person-erasure.js';
import { ERASED_EMAIL_PATTERN } from '@glimpse/messaging';

export { INTERNAL_HEADERS };

/** The JSON text as it is, without express's ETag (a hash of every answer no client revalidates). */
function sendJson(res: Response, json: string): void {
  res.status(200).setHeader('content-type', 'application/json; charset=utf-8');
  res.end(json);
}

/** A database that cannot be reached is a 503 the client may retry, never a 500. */
function handle(fn: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (!(err instanceof AppError) && isDatabaseUnavailable(err)) {
        throw new AppError('service_unavailable', 'the lookup database is unavailable; retry later', { cause: err, headers: { 'Retry-After': '1' } });
      }
      throw err;
    }
  };
}

/** Who may call what: the gateway every route; the webhooks service only the (billed) person details and the companies lookup. */
export const INTERNAL_ROUTES: InternalRouteTable = { gateway: '*', webhooks: ['POST /internal/persons/details', 'POST /internal/companies/lookup'] };

const accountOf = (res: Response) => res.locals.accountId as string;

function sendEnriched(res: Response, { record, creditsLeft }: Enriched): void {
  if (creditsLeft !== null) res.setHeader(CREDITS_HEADER, String(creditsLeft));
  sendJson(res, record);
}

/** A route whose JSON body is read up to `limit` (any JSON value, as the use case judges it), answered by `fn` as handle() does. */
function jsonRoute(router: Router, method: 'post' | 'put', path: string, limit: string, fn: (req: Request, res: Response) => Promise<void>): void {
  router[method](path, express.json({ limit, strict: false }), handle(fn));
}

/** Companies by domain: the billed enrichment (one and bulk, as a person's) and the unbilled lookup for other services. */
function companyRoutes(router: Router, { companies, credits }: Pick<RouterDeps, 'companies' | 'credits'>): void {
  const deps = { companies, credits };
  jsonRoute(router, 'post', '/internal/companies/enrichment', '4kb', async (req, res) => {
    sendEnriched(res, await enrichCompany(deps, accountOf(res), req.body));
  });
  jsonRoute(router, 'post', '/internal/companies/enrichment/bulk', '256kb', async (req, res) => {
    sendEnriched(res, await enrichCompaniesBulk(deps, accountOf(res), req.body));
  });
  // Up to 10,000 domains of 253 characters at most, quoted.
  jsonRoute(router, 'post', '/internal/companies/lookup', '3mb', async (req, res) => {
    res.json(await lookupCompanies(deps.companies, req.body));
  });
}

/** The use cases' stores, and the Db of the routes that call the data layer alone (erasure, limits, totals). */
type RouterDeps = LookupDeps & DisclosureDeps & { companies: CompanyStore; usage: UsageStore; db: Db };

export function internalRouter({ internalTokens, ...deps }: RouterDeps & { internalTokens: Partial<Record<string, string>> }): Router {
  const router = express.Router();
  router.use('/internal', internalCallers({ tokens: internalTokens, routes: INTERNAL_ROUTES }));
  personRoutes(router, deps);
  companyRoutes(router, deps);
  usageRoutes(router, deps);
  return router;
}

/** Persons: a visitor's details, the billed enrichment (one and bulk), a person's details for other services, and an erasure. */
function personRoutes(router: Router, deps: RouterDeps): void {
  router.get(
    '/internal/visitors/:visitorId/details',
    handle(async (req, res) => {
      sendJson(res, await visitorDetails(deps, accountOf(res), req.params.visitorId as string));
    }),
  );
  jsonRoute(router, 'post', '/internal/enrichment', '32kb', async (req, res) => {
    sendEnriched(res, await enrichPerson(deps, accountOf(res), req.body));
  });
  jsonRoute(router, 'post', '/internal/enrichment/bulk', '512kb', async (req, res) => {
    sendEnriched(res, await enrichBulk(deps, accountOf(res), req.body));
  });
  // The api.md §2.1 fields of the person behind an email ({email, billable: true}), for the details of a
  // visitor the account's site tag identified and the visitor.identified webhook: billed as an
  // enrichment, once per person per account per month; {disclosed: false} without credits.
  jsonRoute(router, 'post', '/internal/persons/details', '4kb', async (req, res) => {
    const { answer, creditsLeft } = await disclosePerson(deps, accountOf(res), req.body);
    if (creditsLeft !== null) res.setHeader(CREDITS_HEADER, String(creditsLeft));
    res.json(answer);
  });
  // An account's erasure of a person (DELETE /account/persons/{email} at the gateway): the account's
  // visitors matched to the person go, and the email leaves the page views of its other visitors
  // (replaced by the playbook service's stand-in, which the gateway passes on). Idempotent.
  jsonRoute(router, 'post', '/internal/persons/erase', '4kb', async (req, res) => {
    const body = req.body as { email?: unknown; replacement?: unknown } | null;
    const email = normalizeEmail(body?.email);
    if (!email) throw new AppError('invalid_request', 'email must be a valid email address');
    const replacement = body?.replacement;
    if (typeof replacement !== 'string' || !ERASED_EMAIL_PATTERN.test(replacement))
      throw new AppError('invalid_request', 'replacement must be an erased email stand-in (erased: and 64 hex digits)');
    res.json(await erasePersonOfAccount(deps.db, accountOf(res), email, replacement));
  });
}

/** Usage: the account's own, and the operator's (credit limit, totals). */
function usageRoutes(router: Router, deps: Pick<RouterDeps, 'usage' | 'db'>): void {
  router.get(
    '/internal/usage',
    handle(async (req, res) => {
      res.json(await accountUsage(deps.usage, accountOf(res), req.query as Record<string, unknown>));
    }),
  );
  // The operator's routes (PUT /operator/accounts/{id}/credits and GET …/usage at the gateway): the
  // account's credit limit (null removes it), and its usage of all time with this month's billed persons.
  jsonRoute(router, 'put', '/internal/credits', '1kb', async (req, res) => {
    const credits = parseCreditLimitBody(req.body);
    await setCreditLimit(deps.db, accountOf(res), credits);
    res.json({ credits });
  });
  router.get(
    '/internal/usage/totals',
    handle(async (_req, res) => {
      const [totals, period] = await Promise.all([usageTotals(deps.db, accountOf(res)), periodUsage(deps.usage, accountOf(res))]);
      res.json({ ...totals, period });
    }),
  );
}
