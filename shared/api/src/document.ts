// The public API as one OpenAPI 3.1 document, generated from the zod schemas the services validate
// with (zod-to-openapi), the records of the lookups among them (records.ts). The gateway serves it at
// /openapi.json; docs/openapi.json is the same document committed (npm run openapi writes it, a
// test keeps it current); the integration tests validate every answer against it.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { companyEnrichmentBulkSchema, companyEnrichmentInputSchema, companyRecordSchema } from './companies.js';
import { COMPANIES_CSV_MAX, COMPANY_SORTS, companyDetailSchema, companyListSchema } from './company-views.js';
import { withBody } from './operation.js';
import { registerSegments } from './segments.js';
import { registerPayloadWebhooks } from './webhook-payloads.js';
import { enrichmentBulkSchema, enrichmentInputSchema } from './enrichment.js';
import { batchResultSchema, errorBodySchema, eventAckSchema, eventBatchSchema, eventInputSchema } from './events.js';
import {
  apiKeyCreatedSchema,
  apiKeyInputSchema,
  apiKeySchema,
  catalogPageSchema,
  dryRunSchema,
  erasureSchema,
  receiptSchema,
  suppressionCreatedSchema,
  suppressionInputSchema,
  suppressionSchema,
  enrollmentSchema,
  eventTokenCreatedSchema,
  eventTokenSchema,
  listOf,
  pageOf,
  playbookCreateSchema,
  playbookSchema,
  playbookUpdateSchema,
  recentEventsPageSchema,
  usageSchema,
} from './management.js';
import { enrichedRecordSchema, visitorDetailsSchema } from './records.js';
import {
  linkTokenCreatedSchema,
  linkTokenInputSchema,
  pageRuleInputSchema,
  pageRuleSchema,
  pageRuleUpdateSchema,
  visitorRecordSchema,
} from './identification.js';
import { intentSettingsInputSchema, intentSettingsSchema } from './intent.js';
import {
  collectAnswerSchema,
  collectRequestSchema,
  identitySecretRotatedSchema,
  siteCreatedSchema,
  siteCreateSchema,
  siteSchema,
  siteStatsSchema,
  siteTrafficSchema,
  siteUpdateSchema,
  VISITOR_SORTS,
  visitorSummarySchema,
} from './sites.js';
import {
  WEBHOOK_DELIVERY_STATUSES,
  webhookCreateSchema,
  webhookDeliverySchema,
  webhookEndpointCreatedSchema,
  webhookEndpointSchema,
  webhookSecretRotatedSchema,
  webhookUpdateSchema,
} from './webhooks.js';

export const API_VERSION = '1.5.0';

const ERRORS = {
  400: 'the request breaks a rule the message names',
  401: 'missing, unknown or revoked credential, or one of the wrong kind',
  402: 'the account has used all its enrichment credits',
  403: "the credential lacks the endpoint's scope (forbidden), or the account lacks the workflows add-on the endpoint belongs to (addon_required: events, event-token creation, playbooks, page rules)",
  404: 'no such visitor in this account, or nobody matches (not billed)',
  409: 'a request with the same Idempotency-Key is still in flight; retry after Retry-After',
  413: 'the body is over the size limit',
  415: 'the body is not JSON',
  422: 'an Idempotency-Key reused with another body, or (playbooks) an event name never sent',
  429: "over a rate limit (the API key's, or its account's: every key of the account together); Retry-After says when to try again",
  500: 'an unexpected failure (never expected; listed so a test reports it as a status, not a schema error)',
  503: 'a dependency is down; nothing was done; retry after Retry-After',
} as const;
type ErrorStatus = keyof typeof ERRORS;

const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const RATE_HEADERS = {
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
};
const CREDIT_HEADERS = { 'Credits-Remaining': ref('headers', 'CreditsRemaining') };

function errors(statuses: ErrorStatus[], headers: Record<string, unknown> = {}) {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: ERRORS[status],
        headers: status === 429 || status === 503 || status === 409 ? { ...headers, 'Retry-After': ref('headers', 'RetryAfter') } : headers,
        content: json(errorBodySchema),
      },
    ]),
  );
}

const idempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/)
  .optional()
  .meta({
    description:
      'Makes a retry safe for 24 h: the same key with the same body is answered as the first time and never applied or billed twice; with another body it is 422.',
  });

/** A JSON body or answer of this schema (or a reference to a registered one). */
const json = <T extends z.ZodType | ReturnType<typeof ref>>(schema: T) => ({ 'application/json': { schema } });

/** The request of a POST that applies at most once per Idempotency-Key: the key, and a required JSON body. */
const idempotentRequest = (body: z.ZodType) => withBody(body, { headers: z.object({ 'Idempotency-Key': idempotencyKey }) });

/** The answer of a bulk enrichment: the lookups billed, and one result per lookup, in order, with a record of this component. */
function bulkResult(record: string) {
  return {
    type: 'object',
    required: ['billed', 'results'],
    additionalProperties: false,
    properties: {
      billed: { type: 'integer', minimum: 0, description: 'the lookups of this call that were billed' },
      results: {
        type: 'array',
        items: {
          oneOf: [
            {
              type: 'object',
              required: ['status', 'record'],
              additionalProperties: false,
              properties: { status: { const: 200 }, record: ref('schemas', record) },
            },
            {
              type: 'object',
              required: ['status', 'error', 'message'],
              additionalProperties: false,
              properties: { status: { type: 'integer', enum: [400, 402, 404] }, error: { type: 'string' }, message: { type: 'string', minLength: 1 } },
            },
          ],
        },
      },
    },
  } as never;
}

type Security = Record<string, string[]>[];

/** The document's tags: what each group of operations is and the credential it takes. */
const TAGS = [
  { name: 'Lookups', description: 'Visitor details and enrichment, with an API key' },
  { name: 'Events', description: 'Events, with an event token' },
  { name: 'Collect', description: 'What the site tag sends from the browser, with the publishable site key (glp_…) in the body' },
  {
    name: 'Sites',
    description:
      'Sites with their tag, origins, identification settings and traffic, the visitors the tag has seen, email-link tokens and page rules; an API key with the account:manage scope',
  },
  { name: 'Account', description: 'The management API: an API key with the account:manage scope, acting on its own account' },
  {
    name: 'Webhooks',
    description:
      "Webhook endpoints that receive enrollment.started, enrollment.stopped, visitor.identified (a visitor linked to a person: visitor_id, site_id, method, confidence, email and the person's details fields that are known), company.visited (a named company's first visit to a site in a UTC day, with its firmographics: the CompanyVisitedPayload webhook), segment.entered and segment.digest (segment alerts); Slack endpoints (kind slack) that receive the segment alerts as Block Kit messages; their signing secrets and deliveries; an API key with the account:manage scope",
  },
];

export function buildOpenApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const security = registerCommonComponents(registry);
  registerLookups(registry, security);
  registerEvents(registry, security);
  registerCollect(registry);
  registerManagement(registry, security);
  registerSites(registry, security);
  registerWebhooks(registry, security);
  registerPayloadWebhooks(registry);
  registerCompanies(registry, security);
  registerCompanyViews(registry, security);
  registerIntent(registry, security);
  registerSegments(managementOperations(registry, security, 'Segments'));

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Glimpse API',
      version: API_VERSION,
      description:
        'Visitor details and person enrichment (API key), and events that start and stop playbooks (event token). Every error is {error, message}. ' +
        'Field names carry neutral words in place of brands: pronet, social1, social2, codehost, startup, funding, traffic.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/' }],
    tags: TAGS,
  });
  // A plain JSON value: what is served and committed is exactly what a client parses.
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}

/** The bearer scheme and the shared headers; answers the security requirement every operation with a credential takes. */
function registerCommonComponents(registry: OpenAPIRegistry): Security {
  const bearer = registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (glk_…) for the lookups, an event token (gle_…) for the events. A site key (glp_…) is refused (401) everywhere: it only collects.',
  });
  registry.registerComponent('headers', 'RetryAfter', {
    required: true,
    description: 'seconds to wait before retrying',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  });
  registry.registerComponent('headers', 'RateLimitLimit', {
    description: 'requests (events, lookups) allowed in the window (IETF RateLimit fields draft)',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  });
  registry.registerComponent('headers', 'RateLimitRemaining', { description: 'requests left in the window', schema: { type: 'string', pattern: '^[0-9]+$' } });
  registry.registerComponent('headers', 'RateLimitReset', { description: 'seconds until the window resets', schema: { type: 'string', pattern: '^[0-9]+$' } });
  registry.registerComponent('headers', 'CreditsRemaining', {
    description: 'enrichment credits the account has left; only when it has a credit limit',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  });
  registry.registerComponent('headers', 'EventId', {
    required: true,
    description: 'the id of the accepted event (the same for a retry with its Idempotency-Key)',
    schema: { type: 'string', format: 'uuid' },
  });

  return [{ [bearer.name]: [] }];
}

/** The visitor details and the person enrichment (single and bulk), with an API key. */
function registerLookups(registry: OpenAPIRegistry, security: Security): void {
  registry.registerPath({
    method: 'get',
    path: '/visitors/{visitorId}/details',
    operationId: 'visitors.getDetails',
    tags: ['Lookups'],
    summary: "A visitor's details",
    security,
    request: {
      params: z.object({
        visitorId: z
          .string()
          .regex(/^[a-fA-F0-9]{24}$/)
          .meta({ description: '24 hexadecimal characters, case-insensitive' }),
      }),
    },
    responses: {
      200: { description: 'visitor details', headers: RATE_HEADERS, content: json(visitorDetailsSchema) },
      ...errors([400, 401, 403, 404, 429, 500, 503], RATE_HEADERS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/visitors/enrichment',
    operationId: 'visitors.enrich',
    tags: ['Lookups'],
    summary: 'Enrich a person; a match is billed as one identity match plus one enriched record',
    security,
    request: idempotentRequest(enrichmentInputSchema),
    responses: {
      200: {
        description: 'the enriched record',
        headers: { ...RATE_HEADERS, ...CREDIT_HEADERS },
        content: json(enrichedRecordSchema),
      },
      ...errors([400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503], { ...RATE_HEADERS, ...CREDIT_HEADERS }),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/visitors/enrichment/bulk',
    operationId: 'visitors.enrichBulk',
    tags: ['Lookups'],
    summary: 'Up to 100 enrichments in one call, answered in order and billed per match exactly as single calls (402 per item once credits run out)',
    description: 'The rate limit counts the lookups of the call.',
    security,
    request: idempotentRequest(enrichmentBulkSchema(enrichmentInputSchema)),
    responses: {
      200: {
        description: 'one result per lookup, in order',
        headers: { ...RATE_HEADERS, ...CREDIT_HEADERS },
        content: json(ref('schemas', 'BulkEnrichmentResult')),
      },
      ...errors([400, 401, 403, 409, 413, 415, 422, 429, 500, 503], { ...RATE_HEADERS, ...CREDIT_HEADERS }),
    },
  });
  registry.registerComponent('schemas', 'BulkEnrichmentResult', bulkResult('EnrichedRecord'));
}

/** The events that start and stop playbooks (single and batch), with an event token. */
function registerEvents(registry: OpenAPIRegistry, security: Security): void {
  registry.registerPath({
    method: 'post',
    path: '/events',
    operationId: 'events.post',
    tags: ['Events'],
    summary: 'Post an event that starts or stops playbooks; answered once Kafka has it (acks=all)',
    security,
    request: idempotentRequest(eventInputSchema),
    responses: {
      200: {
        description: 'accepted',
        headers: { 'X-Event-Id': ref('headers', 'EventId'), ...RATE_HEADERS },
        content: json(eventAckSchema),
      },
      ...errors([400, 401, 403, 409, 413, 415, 422, 429, 500, 503], RATE_HEADERS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/events/batch',
    operationId: 'events.postBatch',
    tags: ['Events'],
    summary: 'Up to 500 events (512 KB) in one call, each judged by the rules of POST /events and answered in order',
    description:
      'Every accepted event is in Kafka (acks=all) before the answer. The rate limit counts events. With an Idempotency-Key a retry of the same batch accepts nothing twice. 503 when nothing could be recorded.',
    security,
    request: idempotentRequest(eventBatchSchema(eventInputSchema)),
    responses: {
      200: { description: 'one result per event, in order', headers: RATE_HEADERS, content: json(batchResultSchema) },
      ...errors([400, 401, 403, 413, 415, 429, 500, 503], RATE_HEADERS),
    },
  });
}

const MANAGEMENT_ERRORS: ErrorStatus[] = [400, 401, 403, 404, 413, 415, 422, 429, 500, 503];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Ok = { status: number; description: string; schema?: z.ZodType };

const idParam = { params: z.object({ id: z.string().meta({ description: "the id (a UUID); another account's is 404" }) }) };
const page = z.object({
  limit: z
    .string()
    .regex(/^[0-9]+$/)
    .optional()
    .meta({ description: '1 to 200 (default 50)' }),
  cursor: z.string().optional().meta({ description: 'nextCursor of the previous page' }),
});
const answer = (ok: Ok) => ({ description: ok.description, headers: RATE_HEADERS, ...(ok.schema ? { content: json(ok.schema) } : {}) });

/**
 * Registers the operations of one tag of the management API: its answer, and the management errors.
 * `more` is either other successful answers (an array) or extra responses by status.
 */
function managementOperations(registry: OpenAPIRegistry, security: Record<string, string[]>[], tag: string) {
  return (
    method: Method,
    path: string,
    operationId: string,
    summary: string,
    ok: Ok,
    request: Record<string, unknown> = {},
    more: Ok[] | Record<number, unknown> = {},
  ) => {
    const also = Array.isArray(more) ? more : [];
    const extra = Array.isArray(more) ? {} : more;
    return registry.registerPath({
      method,
      path,
      operationId,
      tags: [tag],
      summary,
      security,
      request,
      responses: {
        [ok.status]: answer(ok),
        ...Object.fromEntries(also.map((a) => [a.status, answer(a)])),
        ...errors(MANAGEMENT_ERRORS, RATE_HEADERS),
        ...extra,
      } as never,
    });
  };
}

/** Intent scores' weights (GET and PUT /account/intent), answered by the visitors service. */
function registerIntent(registry: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const op = managementOperations(registry, security, 'Account');
  op('get', '/account/intent', 'intent.getSettings', "The weights and half-life of the account's intent scores", {
    status: 200,
    description: 'the settings (the defaults until changed)',
    schema: intentSettingsSchema,
  });
  op(
    'put',
    '/account/intent',
    'intent.putSettings',
    "Change the weights or the half-life of the account's intent scores: every score is recomputed within minutes",
    { status: 200, description: 'the settings', schema: intentSettingsSchema },
    withBody(intentSettingsInputSchema),
  );
}

// A creation past one of the account's caps is 409 limit_reached, its message naming the cap.
const atCap = (what: string) => ({
  409: { description: `${what} (limit_reached); the message names the cap`, headers: RATE_HEADERS, content: json(errorBodySchema) },
});

type Operation = ReturnType<typeof managementOperations>;

/** The management API under /account: credentials, playbooks, events, suppressions and erasure, usage. */
function registerManagement(registry: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const op = managementOperations(registry, security, 'Account');
  registerCredentials(op);
  registerPlaybooks(op);
  registerEventViews(op);
  registerPersonsAndUsage(op);
}

/** Event tokens and API keys: create (at a cap), list and revoke. */
function registerCredentials(op: Operation): void {
  // The two credential kinds have the same three operations: create (at a cap), list and revoke.
  const credentialKinds = [
    {
      path: 'event-tokens',
      name: 'EventToken',
      one: 'an event token',
      createSummary: 'Create an event token',
      many: 'event tokens',
      plural: 'tokens',
      shown: 'token',
      created: eventTokenCreatedSchema,
      item: eventTokenSchema,
      body: {},
    },
    {
      path: 'api-keys',
      name: 'ApiKey',
      one: 'an API key',
      createSummary: 'Create an API key with scopes',
      many: 'API keys',
      plural: 'keys',
      shown: 'key',
      created: apiKeyCreatedSchema,
      item: apiKeySchema,
      body: withBody(apiKeyInputSchema),
    },
  ];
  for (const kind of credentialKinds) {
    op(
      'post',
      `/account/${kind.path}`,
      `account.create${kind.name}`,
      kind.createSummary,
      { status: 201, description: `created; the ${kind.shown} is shown once`, schema: kind.created },
      kind.body,
      atCap(`the account already has its maximum of active ${kind.many} (50 by default); revoke one first`),
    );
    op(
      'get',
      `/account/${kind.path}`,
      `account.list${kind.name}s`,
      `The ${kind.many}, newest first (revoked ones too: the last 100 revoked)`,
      { status: 200, description: `a page of ${kind.plural} (prefixes only)`, schema: pageOf(kind.item) },
      { query: page },
    );
    op('delete', `/account/${kind.path}/{id}`, `account.revoke${kind.name}`, `Revoke ${kind.one}`, { status: 204, description: 'revoked' }, idParam);
  }
}

/** Playbooks and their enrollments. */
function registerPlaybooks(op: Operation): void {
  op('get', '/account/playbooks', 'account.listPlaybooks', 'The playbooks', { status: 200, description: 'the playbooks', schema: listOf(playbookSchema) });
  op(
    'post',
    '/account/playbooks',
    'account.createPlaybook',
    'Create a playbook',
    { status: 201, description: 'created', schema: playbookSchema },
    withBody(playbookCreateSchema),
    atCap(
      'the account already has its maximum of playbooks (200 by default), the playbook more than its maximum of triggers or exits (50 each by default), or a trigger is not in the full catalog',
    ),
  );
  op('get', '/account/playbooks/{id}', 'account.getPlaybook', 'A playbook', { status: 200, description: 'the playbook', schema: playbookSchema }, idParam);
  op(
    'patch',
    '/account/playbooks/{id}',
    'account.updatePlaybook',
    'Change a playbook (opting in or out of event names)',
    { status: 200, description: 'the playbook', schema: playbookSchema },
    withBody(playbookUpdateSchema, idParam),
    atCap('more than the maximum of triggers or exits of a playbook (50 each by default), or a trigger is not in the full catalog'),
  );
  op('delete', '/account/playbooks/{id}', 'account.deletePlaybook', 'Delete a playbook with its enrollments', { status: 204, description: 'deleted' }, idParam);
  op(
    'get',
    '/account/playbooks/{id}/enrollments',
    'account.listEnrollments',
    "A playbook's enrollments, newest first",
    { status: 200, description: 'a page of enrollments', schema: pageOf(enrollmentSchema) },
    {
      ...idParam,
      query: page.extend({ status: z.enum(['active', 'stopped']).optional() }),
    },
  );
}

/** The event catalog, the recent raw events, a dry run and an event's receipt. */
function registerEventViews(op: Operation): void {
  op(
    'get',
    '/account/events/catalog',
    'account.eventCatalog',
    'The event names the account has sent, by name, with the playbooks opted in to each; at most maxNames (1000 by default): past it, an event with a new name is accepted and applied but its name is not added (full, refused)',
    { status: 200, description: 'a page of the catalog, with how full it is', schema: catalogPageSchema },
    { query: page.extend({ cursor: z.string().optional().meta({ description: 'nextCursor of the previous page (the last name it held)' }) }) },
  );
  op(
    'get',
    '/account/events/recent',
    'account.recentEvents',
    'The raw events of the last 24 h, newest first',
    { status: 200, description: 'a page of events', schema: recentEventsPageSchema },
    { query: page },
  );
  op(
    'post',
    '/account/events/dry-run',
    'account.dryRunEvent',
    'What an event would do for its person now (writes nothing)',
    { status: 200, description: 'per opted-in playbook: start, stop, restart or none, and why', schema: dryRunSchema },
    withBody(eventInputSchema),
  );
  op(
    'get',
    '/account/events/{eventId}',
    'account.eventReceipt',
    'What an accepted event did (its receipt; the id is X-Event-Id)',
    { status: 200, description: 'the receipt', schema: receiptSchema },
    {
      params: z.object({ eventId: z.string().meta({ description: 'the X-Event-Id of POST /events, or an id of a batch result' }) }),
    },
  );
}

/** Suppressions, a person's erasure, and the account's usage. */
function registerPersonsAndUsage(op: Operation): void {
  op(
    'post',
    '/account/suppressions',
    'account.suppress',
    'Suppress a person: their events start nothing; their active enrollments stop (reason suppressed)',
    { status: 201, description: 'suppressed', schema: suppressionCreatedSchema },
    withBody(suppressionInputSchema),
    {
      200: answer({ status: 200, description: 'already suppressed (stoppedEnrollments: any enrollment still active)', schema: suppressionCreatedSchema }),
      ...atCap('the account already has its maximum of suppressed people (100000 by default); lift one first'),
    },
  );
  op(
    'get',
    '/account/suppressions',
    'account.listSuppressions',
    'The suppressed people, newest first',
    { status: 200, description: 'a page of suppressions', schema: pageOf(suppressionSchema) },
    { query: page },
  );
  const emailParam = { params: z.object({ email: z.string().meta({ description: 'the email (URL-encoded); trimmed and lower-cased' }) }) };
  op('delete', '/account/suppressions/{email}', 'account.unsuppress', 'Lift a suppression', { status: 204, description: 'lifted' }, emailParam);
  op(
    'delete',
    '/account/persons/{email}',
    'account.erasePerson',
    "Erase a person: active enrollments stop, the email leaves the account's data in every service and Redis (a keyed stand-in stays in enrollments, effects and delivery records), Kafka's copies expire within 24 h",
    { status: 200, description: 'what was erased', schema: erasureSchema },
    emailParam,
  );
  op(
    'get',
    '/account/usage',
    'account.usage',
    'Billable usage by day',
    { status: 200, description: 'usage by day and in total', schema: usageSchema },
    {
      query: z.object({
        from: z.string().optional().meta({ description: 'YYYY-MM-DD (default 30 days ago)' }),
        to: z.string().optional().meta({ description: 'YYYY-MM-DD (default today); at most 366 days' }),
      }),
    },
  );
}

/** POST /collect: the tag's page views, engagement, identify and track calls; no bearer credential (the site key is in the body). */
function registerCollect(registry: OpenAPIRegistry): void {
  const cors = {
    'Access-Control-Allow-Origin': { description: "the request's Origin, only when it is one of the site's origins", schema: { type: 'string' as const } },
    'Set-Cookie': {
      description:
        '_glv=<vid>; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly (and Secure under https); not for a bot, never for a cookieless visitor (whose earlier _glv is deleted with Max-Age=0)',
      schema: { type: 'string' as const },
    },
  };
  const refusal = (description: string) => ({ description, content: json(errorBodySchema) });
  registry.registerPath({
    method: 'post',
    path: '/collect',
    operationId: 'collect.post',
    tags: ['Collect'],
    security: [],
    summary: "The site tag's events, recorded (Kafka, acks=all) before the answer",
    description:
      'The visitor id is body vid when valid, else the _glv cookie when valid, else minted (24 hex, ObjectId-shaped). A bot user agent is counted, never a visitor. ' +
      "Track names the site does not allow are dropped (accepted counts what was taken). Sent as text/plain (no preflight) or application/json (preflight answered for the site's origins). " +
      'The collector can be served from a CNAME of the site (e.g. t.example.com), so its cookie is first-party and not capped at seven days. ' +
      'Consent: on a site with consent required (until consent granted), and for any visitor who denied it or sends GPC to a site honouring it, no cookie is set and the visitor is counted under a cookieless id, ' +
      'the first 24 hex of HMAC-SHA256(salt of the UTC day, site|IP|user agent): the same browser is one visitor for a day, never followed across days; the salt is random per day, kept 48 h in Redis and never with the data. ' +
      "Such page views are marked cookieless and carry no address; identify, link and track are dropped. A consent item granted mints the persistent id (and cookie) and credits to it the page views it lists (views: this browser's, sent while pending), leaving the day's cookieless profile (shared behind one address and browser) alone; denied deletes the visitor's identity links. " +
      'On a consent-required site a cookie alone is no grant: without consent granted the visitor is cookieless and the cookie is deleted. ' +
      "What reaches Kafka of an address is trimmed, whoever sent it: a page view's url keeps its origin, path, utm_ parameters and the site's query_keys (never a fragment), a referrer its origin and path, a path nothing from '?' or '#'. " +
      "Identification: identify with a valid hash (HMAC-SHA256 of the site's identity secret and the email; checked when the site's identity_verification is optional or required): verified, confidence 1; identify without one: a claim, 0.7 (dropped on a site that requires verification); identify with method form only on a site with capture_forms (a claim, 0.6); link items with a token of POST /account/link-tokens of the site's account, not expired (email_link, verified, 1); others dropped. " +
      "Limits: per client address (IPv6 by /64) and then per site, so one address cannot spend a site's budget.",
    request: {
      body: {
        required: true,
        content: { 'text/plain': { schema: collectRequestSchema }, 'application/json': { schema: collectRequestSchema } },
      },
    },
    responses: {
      200: { description: 'recorded', headers: cors, content: json(collectAnswerSchema) },
      400: refusal('the body breaks a rule the message names; nothing was recorded'),
      401: refusal('unknown site key'),
      403: refusal("the Origin is missing or not one of the site's origins; nothing was recorded"),
      413: refusal('the body is over 32 KB'),
      415: refusal('the body is neither text/plain nor application/json'),
      429: {
        description: "over the client address's or the site's rate limit; Retry-After says when to try again",
        headers: { 'Retry-After': ref('headers', 'RetryAfter') },
        content: json(errorBodySchema),
      },
      500: refusal(ERRORS[500]),
      503: { description: ERRORS[503], headers: { 'Retry-After': ref('headers', 'RetryAfter') }, content: json(errorBodySchema) },
    },
  });
}

/** Sites under /account/sites, the visitors the tag has seen (answered by the visitors service), email links and page rules. */
function registerSites(registry: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const op = managementOperations(registry, security, 'Sites');
  registerSiteOperations(op);
  registerVisitorViews(op);
  registerIdentification(op);
}

const SITE_AT_LIMIT = {
  409: {
    description: 'the account already has its maximum of sites (50 by default; limit_reached); delete one first',
    headers: RATE_HEADERS,
    content: json(errorBodySchema),
  },
};

/** A site: create (at a cap), list, read, change, rotate its identity secret, delete, and its traffic and stats. */
function registerSiteOperations(op: Operation): void {
  op(
    'post',
    '/account/sites',
    'sites.create',
    'Create a site: its publishable key, install snippet and identity secret (shown once)',
    { status: 201, description: 'created', schema: siteCreatedSchema },
    withBody(siteCreateSchema),
    SITE_AT_LIMIT,
  );
  op('get', '/account/sites', 'sites.list', 'The sites, newest first', { status: 200, description: 'the sites', schema: listOf(siteSchema) });
  op('get', '/account/sites/{id}', 'sites.get', 'A site', { status: 200, description: 'the site', schema: siteSchema }, idParam);
  op(
    'patch',
    '/account/sites/{id}',
    'sites.update',
    'Change a site: its name, origins, allowed track names or identification settings',
    { status: 200, description: 'the site', schema: siteSchema },
    withBody(siteUpdateSchema, idParam),
  );
  op(
    'post',
    '/account/sites/{id}/identity-secret',
    'sites.rotateIdentitySecret',
    "Rotate the site's identity secret: the new one is answered once; the previous one still verifies for 24 hours (a site without one gets its first)",
    { status: 200, description: 'the new secret', schema: identitySecretRotatedSchema },
    idParam,
  );
  op(
    'delete',
    '/account/sites/{id}',
    'sites.delete',
    'Delete a site; its key stops collecting and its visitors and traffic are deleted',
    { status: 204, description: 'deleted' },
    idParam,
  );
  op(
    'get',
    '/account/sites/{id}/traffic',
    'sites.traffic',
    'Page views, visitors and bots per hour over the last 24 hours',
    { status: 200, description: 'the traffic', schema: siteTrafficSchema },
    idParam,
  );
  op(
    'get',
    '/account/sites/{id}/stats',
    'sites.stats',
    'Page views, visitors, identified visitors and bots over the last 24 hours',
    { status: 200, description: 'the counts', schema: siteStatsSchema },
    idParam,
  );
}

/** The visitors the tag has seen, a page at a time, and one visitor's full record. */
function registerVisitorViews(op: Operation): void {
  op(
    'get',
    '/account/visitors',
    'sites.listVisitors',
    'The visitors the tag has seen, the latest seen first (identified first when not filtered)',
    { status: 200, description: 'a page of visitors', schema: pageOf(visitorSummarySchema) },
    {
      query: page.extend({
        identified: z.enum(['true', 'false']).optional().meta({ description: 'only the identified visitors (true) or only the others (false)' }),
        sort: z
          .enum(VISITOR_SORTS)
          .optional()
          .meta({ description: 'last_seen (default: identified first, then the latest seen) or score (the highest intent score now first)' }),
      }),
    },
  );
  const visitorParam = { params: z.object({ id: z.string().meta({ description: "the visitor id (24 hex); another account's is 404" }) }) };
  op(
    'get',
    '/account/visitors/{id}',
    'sites.getVisitor',
    "A visitor's record: pages, sessions, identity history (with the page view of each match), consent and company",
    { status: 200, description: 'the visitor', schema: visitorRecordSchema },
    visitorParam,
  );
}

/** Email-link tokens and page rules. */
function registerIdentification(op: Operation): void {
  op(
    'post',
    '/account/link-tokens',
    'sites.createLinkToken',
    'A token for campaign links (?gl=<token>) that identifies the visitor following it as the person (email_link)',
    { status: 201, description: 'the token', schema: linkTokenCreatedSchema },
    withBody(linkTokenInputSchema),
  );
  op(
    'delete',
    '/account/link-tokens/{id}',
    'sites.revokeLinkToken',
    'Revoke one link token: a link page view with it identifies nobody (within a minute on every gateway). Idempotent; an id this account never issued revokes nothing',
    { status: 204, description: 'revoked' },
    { params: z.object({ id: z.string().meta({ description: 'the id answered when the token was made (22 characters: letters, digits, _ -)' }) }) },
  );
  op(
    'delete',
    '/account/link-tokens',
    'sites.revokeLinkTokens',
    "Revoke every link token of the account issued so far (tokens made afterwards identify as usual). Tokens of an erased person's emails are revoked by the erasure",
    { status: 204, description: 'revoked' },
  );
  op('get', '/account/page-rules', 'sites.listPageRules', 'The page rules: page views that become events (identified visitors) or intent points', {
    status: 200,
    description: 'the rules',
    schema: listOf(pageRuleSchema),
  });
  op(
    'post',
    '/account/page-rules',
    'sites.createPageRule',
    "Make an identified visitor's matching page view an event for the person (once per rule per session), through the same pipeline as POST /events (the workflows add-on), and/or worth intent points (weight) for any visitor, once per rule per session",
    { status: 201, description: 'created', schema: pageRuleSchema },
    withBody(pageRuleInputSchema),
    {
      409: {
        description: 'the account already has its maximum of page rules (100 by default; limit_reached); delete one first',
        headers: RATE_HEADERS,
        content: json(errorBodySchema),
      },
    },
  );
  op(
    'patch',
    '/account/page-rules/{id}',
    'sites.updatePageRule',
    "Change a page rule's weight (the account's scores are recomputed within minutes)",
    { status: 200, description: 'the rule', schema: pageRuleSchema },
    withBody(pageRuleUpdateSchema, idParam),
  );
  op('delete', '/account/page-rules/{id}', 'sites.deletePageRule', 'Delete a page rule', { status: 204, description: 'deleted' }, idParam);
}

const WEBHOOK_AT_LIMIT = {
  409: {
    description: 'the account already has its maximum of webhook endpoints (limit_reached); delete one first',
    headers: RATE_HEADERS,
    content: json(errorBodySchema),
  },
};

/** The webhooks management API under /account/webhooks, answered by the webhooks service. */
function registerWebhooks(registry: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const op = managementOperations(registry, security, 'Webhooks');

  op('get', '/account/webhooks', 'webhooks.list', 'The webhook endpoints, oldest first (never their secrets)', {
    status: 200,
    description: 'the endpoints',
    schema: listOf(webhookEndpointSchema),
  });
  op(
    'post',
    '/account/webhooks',
    'webhooks.create',
    'Subscribe an endpoint to event types; deliveries are signed (Standard Webhooks) with the secret answered here once. kind slack: a Slack incoming-webhook URL that receives the segment alerts as Block Kit messages (no secret)',
    { status: 201, description: 'created, with its secret', schema: webhookEndpointCreatedSchema },
    withBody(webhookCreateSchema),
    WEBHOOK_AT_LIMIT,
  );
  op(
    'get',
    '/account/webhooks/{id}',
    'webhooks.get',
    'A webhook endpoint',
    { status: 200, description: 'the endpoint', schema: webhookEndpointSchema },
    idParam,
  );
  op(
    'patch',
    '/account/webhooks/{id}',
    'webhooks.update',
    'Change an endpoint: its url, its events, or pause and resume it',
    { status: 200, description: 'the endpoint', schema: webhookEndpointSchema },
    withBody(webhookUpdateSchema, idParam),
  );
  op('delete', '/account/webhooks/{id}', 'webhooks.delete', 'Delete an endpoint with its deliveries', { status: 204, description: 'deleted' }, idParam);
  op(
    'post',
    '/account/webhooks/{id}/rotate-secret',
    'webhooks.rotateSecret',
    'A new signing secret, answered once; the previous one keeps signing alongside it until previousSecretExpiresAt',
    { status: 200, description: 'the endpoint with its new secret', schema: webhookSecretRotatedSchema },
    idParam,
  );
  op(
    'get',
    '/account/webhooks/{id}/deliveries',
    'webhooks.listDeliveries',
    "An endpoint's deliveries, newest first, each with every attempt",
    { status: 200, description: 'a page of deliveries', schema: pageOf(webhookDeliverySchema) },
    {
      ...idParam,
      query: page.extend({ status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional() }),
    },
  );
}

/** The companies' enrichment: billed and limited like a person's, one lookup a domain. */
function registerCompanies(registry: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const headers = { ...RATE_HEADERS, ...CREDIT_HEADERS };
  registry.registerPath({
    method: 'post',
    path: '/companies/enrichment',
    operationId: 'companies.enrich',
    tags: ['Lookups'],
    summary: "A company's firmographics by its domain; a match is billed as one identity match plus one enriched record",
    security,
    request: idempotentRequest(companyEnrichmentInputSchema),
    responses: {
      200: { description: 'the company', headers, content: json(companyRecordSchema) },
      ...errors([400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503], headers),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/companies/enrichment/bulk',
    operationId: 'companies.enrichBulk',
    tags: ['Lookups'],
    summary: 'Up to 100 company enrichments in one call, answered in order and billed per match exactly as single calls (402 per item once credits run out)',
    description: 'The rate limit counts the lookups of the call.',
    security,
    request: idempotentRequest(companyEnrichmentBulkSchema(companyEnrichmentInputSchema)),
    responses: {
      200: { description: 'one result per lookup, in order', headers, content: json(ref('schemas', 'BulkCompanyEnrichmentResult')) },
      ...errors([400, 401, 403, 409, 413, 415, 422, 429, 500, 503], headers),
    },
  });
  registry.registerComponent('schemas', 'BulkCompanyEnrichmentResult', bulkResult('CompanyRecord'));
}

/** The companies view under /account/companies: the visitors service's groups joined with enrichment's firmographics. */
function registerCompanyViews(registry: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const op = managementOperations(registry, security, 'Companies');
  const text = (description: string) => z.string().optional().meta({ description });
  const window = z.object({
    site: text("a site's id: only its visits (all the account's sites by default)"),
    since: text('ISO 8601 date-time: sessions that started from then on (default: 30 days before until)'),
    until: text('ISO 8601 date-time: sessions that started before then (default: now, to the next minute); at most 400 days after since'),
  });
  const filters = window.extend({
    industry: text("the firmographics' industry, any case"),
    size: text("the firmographics' size label, e.g. 51-200"),
    country: text("ISO 3166 two-letter code of the company's latest visitor's location"),
    network_type: z.enum(['business', 'education', 'government']).optional().meta({ description: 'the network type of its latest visitor' }),
    min_visits: text('at least this many sessions in the window'),
    sort: z.enum(COMPANY_SORTS).optional().meta({ description: 'last_visit (default), or page_views; then the key' }),
  });
  op(
    'get',
    '/account/companies',
    'companies.list',
    'The companies whose visitors had sessions in a window, newest last visit (or most page views) first, with their firmographics',
    { status: 200, description: 'a page of companies', schema: companyListSchema },
    {
      query: filters.extend({
        limit: text(`1 to ${COMPANIES_CSV_MAX} (default 50)`),
        cursor: text('nextCursor of the previous page'),
      }),
    },
  );
  op(
    'get',
    '/account/companies.csv',
    'companies.csv',
    `The same list as CSV, every company up to ${COMPANIES_CSV_MAX} (an attachment; cells that a spreadsheet would run as a formula are prefixed with ')`,
    { status: 200, description: 'the CSV' },
    { query: filters },
    { 200: { description: 'the CSV, one company a line after the header', headers: RATE_HEADERS, content: { 'text/csv': { schema: z.string() } } } },
  );
  op(
    'get',
    '/account/companies/{key}',
    'companies.get',
    'One company in a window: its counts and firmographics, its visits per day, its visitors and its pages',
    { status: 200, description: 'the company', schema: companyDetailSchema },
    {
      params: z.object({ key: z.string().meta({ description: 'the company domain, or its name lower-cased when no domain is known' }) }),
      query: window,
    },
  );
}
