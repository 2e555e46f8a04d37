// Management routes answered by the services that own the data: playbooks, their enrollments and
// the event catalog (playbook service), usage (enrichment service). Status and body pass through.
import express, { type Response, type Router } from 'express';
import type { EnrichmentClient } from '../../data/enrichment-client.js';
import { relay } from '../../data/internal-service.js';
import type { PlaybookClient } from '../../data/playbook-client.js';
import type { WebhooksClient } from '../../data/webhooks-client.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { AppError } from '@glimpse/errors';
import { normalizeEmail } from '@glimpse/validation';
import type { LinkTokenRevocations } from '../../data/link-token-revocations.js';
import type { RawEventStore } from '../../data/raw-event-store.js';
import type { LinkTokens } from '../../domain/link-token.js';
import { revokeEmail } from '../../domain/link-token-revocation.js';
import { parseEventInput } from '../../domain/event-input.js';
import { jsonBody, rawSearch } from './json-body.js';
import { bodyOf, relaying } from './upstream.js';

const account = (res: Response) => res.locals.accountId as string;
export interface ForwardedRoutesOptions {
  playbooks: PlaybookClient;
  enrichment: EnrichmentClient;
  webhooks: WebhooksClient;
  visitors: VisitorsClient;
  rawStore: RawEventStore;
  /** An erasure revokes every link token of the person's emails. */
  linkTokens: { tokens: LinkTokens; revocations: LinkTokenRevocations };
}

/** Emails of one person erased at once: the erased one and the others enrichment knows of the person (a bound on calls). */
const MAX_PERSON_EMAILS = 20;

export function forwardedRoutes(options: ForwardedRoutesOptions): Router {
  const router = express.Router();
  playbookRoutes(router, options.playbooks);
  router.delete(
    '/account/persons/:email',
    relaying((req, res) => erasePerson(options, req, res)),
  );
  router.get('/account/usage', async (req, res) => relay(res, await options.enrichment.usage(account(res), rawSearch(req))));
  return router;
}

/** Playbooks, their enrollments, the event catalog, a dry run, an event's receipt and suppressions: the playbook service's. */
function playbookRoutes(router: Router, playbooks: PlaybookClient): void {
  const id = (req: express.Request) => req.params.id as string;
  router.get('/account/playbooks', async (_req, res) => relay(res, await playbooks.list(account(res))));
  router.post('/account/playbooks', jsonBody, async (req, res) => relay(res, await playbooks.create(account(res), req.body)));
  router.get('/account/playbooks/:id', async (req, res) => relay(res, await playbooks.get(account(res), id(req))));
  router.patch('/account/playbooks/:id', jsonBody, async (req, res) => relay(res, await playbooks.update(account(res), id(req), req.body)));
  router.delete('/account/playbooks/:id', async (req, res) => relay(res, await playbooks.remove(account(res), id(req))));
  router.get('/account/playbooks/:id/enrollments', async (req, res) => relay(res, await playbooks.enrollments(account(res), id(req), rawSearch(req))));
  router.get('/account/events/catalog', async (req, res) => relay(res, await playbooks.catalog(account(res), rawSearch(req))));
  // The body is judged exactly as POST /events judges it; only the name and the email go on (no properties).
  router.post('/account/events/dry-run', jsonBody, async (req, res) => {
    const { event, email } = parseEventInput(req.body);
    relay(res, await playbooks.dryRun(account(res), { event, email }));
  });

  // After /account/events/catalog and …/recent (mounted before this router): any other segment is an event id.
  router.get('/account/events/:eventId', async (req, res) => relay(res, await playbooks.receipt(account(res), req.params.eventId as string)));
  router.post('/account/suppressions', jsonBody, async (req, res) => relay(res, await playbooks.suppress(account(res), req.body)));
  router.get('/account/suppressions', async (req, res) => relay(res, await playbooks.suppressions(account(res), rawSearch(req))));
  router.delete('/account/suppressions/:email', async (req, res) => relay(res, await playbooks.unsuppress(account(res), req.params.email as string)));
}

/**
 * Erasure: the playbook service's tables first (they hold the email the longest; it answers with
 * the keyed stand-in that replaced it), then the raw events in Redis, then the webhooks service's
 * delivery records (the email becomes that stand-in), then the enrichment service's imported
 * visitors of the person (it answers the person's other emails), then every link token of those
 * emails is revoked for good, then the visitors service's identity links and the aggregates of
 * every visitor tied to the person by any of the emails; all idempotent (erasing again gives the
 * same stand-in), so a 503 from any is retried whole. A service's answer other than 200 is passed on.
 */
async function erasePerson(o: ForwardedRoutesOptions, req: express.Request, res: Response): Promise<void> {
  const email = normalizeEmail(req.params.email as string);
  if (email === null) throw new AppError('invalid_request', 'email must be a valid email address');
  const accountId = account(res);
  const { replacement, ...playbookCounts } = bodyOf(await o.playbooks.erase(accountId, email), 200) as { replacement: string };
  const deletedRawEvents = await o.rawStore.erasePerson(accountId, email);
  const deliveries = bodyOf(await o.webhooks.call('POST', '/internal/persons/erase', accountId, { email, replacement }), 200) as { hashedDeliveries: number };
  const imported = bodyOf(await o.enrichment.erasePerson(accountId, email, replacement), 200) as {
    deletedVisitors: number;
    hashedVisitors: number;
    emails?: string[];
  };
  const emails = [...new Set([email, ...(imported.emails ?? []).map((e) => normalizeEmail(e)).filter((e): e is string => e !== null)])].slice(
    0,
    MAX_PERSON_EMAILS,
  );
  // Before the links go: a link page view in between would make a new one.
  const now = new Date();
  await o.linkTokens.revocations.revoke(
    accountId,
    emails.map((e) => revokeEmail(o.linkTokens.tokens.emailKey(e), now)),
  );
  const { deletedVisitors, deletedLinks } = await eraseVisitorLinks(o.visitors, accountId, emails);
  res.json({
    ...playbookCounts,
    deletedRawEvents,
    ...deliveries,
    deletedVisitors,
    deletedVisitorLinks: deletedLinks,
    deletedImportedVisitors: imported.deletedVisitors,
    hashedImportedVisitors: imported.hashedVisitors,
  });
}

/** The visitors service's identity links of each email and the visitors they tied, counted. */
async function eraseVisitorLinks(visitors: VisitorsClient, accountId: string, emails: readonly string[]) {
  let deletedVisitors = 0;
  let deletedLinks = 0;
  for (const e of emails) {
    const counts = bodyOf(await visitors.call('DELETE', `/internal/persons/${encodeURIComponent(e)}`, accountId), 200) as {
      deletedVisitors: number;
      deletedLinks: number;
    };
    deletedVisitors += counts.deletedVisitors;
    deletedLinks += counts.deletedLinks;
  }
  return { deletedVisitors, deletedLinks };
}
