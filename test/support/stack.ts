// Starts the real services in the test process against the real infrastructure, and the small
// helpers integration tests share: accounts with credentials, posting events, waiting.
import { randomUUID } from 'node:crypto';
import { createAccount, createApiKey, createEventToken, type Scope } from '@glimpse/auth';
import * as identityDb from '@glimpse/db/identity';
import * as playbookDb from '@glimpse/db/playbook';
import * as enrichmentDb from '@glimpse/db/enrichment';
import * as webhooksDb from '@glimpse/db/webhooks';
import * as visitorsDb from '@glimpse/db/visitors';
import { loadConfig as gatewayConfig, startGateway, type RunningGateway } from '@glimpse/gateway';
import { eventCatalog, loadConfig as playbookConfig, startPlaybookService, type RunningPlaybookService } from '@glimpse/playbook';
import { loadConfig as enrichmentConfig, startEnrichmentService, type RunningEnrichmentService } from '@glimpse/enrichment';
import type { RunningWebhooksService } from '@glimpse/webhooks';
// webhooks.ts uses serviceEnv from here: each side calls the other only at run time.
import { startTestWebhooksService } from './webhooks';
import { startTestVisitorsService } from './visitors';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { createLogger } from '@glimpse/logging';
import { TOPICS } from '@glimpse/messaging';
import { freshGroupAtEnd } from './kafka-helpers';
import { expectConformsToInterface, isDocumented } from './openapi';
import { kafkaBrokers, redisUrl, serviceDatabaseUrl, setEnv, testDatabaseUrl } from '../config';
import type { DatabaseService } from '@glimpse/config';

/** A service's environment: the test database as the service's own role (limited to its schema). */
export function serviceEnv(service: DatabaseService, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: serviceDatabaseUrl(service),
    REDIS_URL: redisUrl(),
    KAFKA_BROKERS: kafkaBrokers().join(','),
    HOST: '127.0.0.1',
    PORT: '0',
    PLAYBOOK_PORT: '0',
    PLAYBOOK_GROUP_ID: 'glimpse-playbook-test',
    ...overrides,
  };
}

const silent = (service: string) => createLogger({ service, level: 'silent' });

/**
 * A gateway on the test infrastructure. When its Redis is the tests' (no REDIS_URL of the test's
 * own), it is returned once its Redis client is connected: the client refuses commands until then
 * (no offline queue), so a test that posts at once would find raw copies and idempotency keys
 * missing, most often with the machine busy (a fresh-clone run, 2026-11-26, three test lanes).
 */
export async function startTestGateway(overrides: Record<string, string> = {}): Promise<RunningGateway> {
  const gateway = await startGateway(gatewayConfig(serviceEnv('gateway', overrides)), silent('gateway'));
  if (overrides.REDIS_URL === undefined) {
    await waitFor(
      async () => {
        const res = await fetch(`${gateway.url}/readyz`);
        return ((await res.json()) as { checks?: Record<string, string> }).checks?.redis === 'ok';
      },
      { timeoutMs: 15_000, intervalMs: 20, what: `the gateway's Redis client to connect (${gateway.url}/readyz)` },
    ).catch(async (err: unknown) => {
      await gateway.stop();
      throw err;
    });
  }
  return gateway;
}

/**
 * A playbook service in its own consumer groups that start at the end of events.inbound and of
 * accounts: the broker is shared with benchmarks and earlier runs, and a test must not wait out
 * their backlog (nor replay every account event earlier runs left on the compacted topic).
 */
export async function startTestPlaybookService(overrides: Record<string, string> = {}): Promise<RunningPlaybookService> {
  const groupId = overrides.PLAYBOOK_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test'));
  const accountsGroupId = overrides.PLAYBOOK_ACCOUNTS_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.accounts, `${groupId}-accounts`));
  return startPlaybookService(
    playbookConfig(serviceEnv('playbook', { ...overrides, PLAYBOOK_GROUP_ID: groupId, PLAYBOOK_ACCOUNTS_GROUP_ID: accountsGroupId })),
    silent('playbook'),
  );
}

/** In an accounts consumer group of its own, so instances in parallel test files never share partitions. */
export function startTestEnrichmentService(overrides: Record<string, string> = {}): Promise<RunningEnrichmentService> {
  const env = serviceEnv('enrichment', {
    ENRICHMENT_PORT: '0',
    ENRICHMENT_ACCOUNTS_GROUP_ID: `glimpse-enrichment-accounts-test-${randomUUID()}`,
    ...overrides,
  });
  return startEnrichmentService(enrichmentConfig(env), silent('enrichment'));
}

/**
 * The enrichment and visitors services and a gateway that forwards lookups to them (the details
 * lookup asks both: without the visitors service an unknown visitor is 503, not 404).
 */
export async function startLookupStack(
  gatewayOverrides: Record<string, string> = {},
): Promise<{ gateway: RunningGateway; enrichment: RunningEnrichmentService; visitors: RunningVisitorsService; stop(): Promise<void> }> {
  const [enrichment, visitors] = await Promise.all([startTestEnrichmentService(), startTestVisitorsService()]);
  const operatorToken = randomUUID() + randomUUID();
  const gateway = await startTestGateway({ ENRICHMENT_URL: enrichment.url, VISITORS_URL: visitors.url, OPERATOR_TOKEN: operatorToken, ...gatewayOverrides });
  // The CLI (set-credits, usage, the imports' --account check) is configured by its environment, as
  // for a user: it goes through this gateway's operator API until stop() puts the environment back,
  // so a later test file in the same jest worker does not inherit a stopped gateway's address.
  const restoreCliEnv = setEnv({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: gatewayOverrides.OPERATOR_TOKEN ?? operatorToken });
  return {
    gateway,
    enrichment,
    visitors,
    async stop() {
      restoreCliEnv();
      await gateway.stop();
      await Promise.all([enrichment.stop(), visitors.stop()]);
    },
  };
}

/** Each service's Prisma client (its schema's models only), as the tests open them: the test role reaches every schema. */
const CLIENTS = {
  identity: identityDb.createDb,
  playbook: playbookDb.createDb,
  enrichment: enrichmentDb.createDb,
  webhooks: webhooksDb.createDb,
  visitors: visitorsDb.createDb,
};
type TestDbs = { [S in keyof typeof CLIENTS]: ReturnType<(typeof CLIENTS)[S]> };
let dbs: Partial<TestDbs> = {};

/** The test role's client for one service's models (opened on first use, closed by closeTestDb). */
export function testDb<S extends keyof TestDbs>(service: S): TestDbs[S] {
  return (dbs[service] ??= CLIENTS[service]({ databaseUrl: testDatabaseUrl(), poolSize: 4 }) as TestDbs[S]);
}

/** Raw SQL across every service's schema (row counts, scans for a value): any client will do. */
export function testSql(): identityDb.Db {
  return testDb('identity');
}

export async function closeTestDb(): Promise<void> {
  const open = Object.values(dbs);
  dbs = {};
  await Promise.all(open.map((db) => db.$disconnect()));
}

export interface TestAccount {
  accountId: string;
  token: string;
  tokenId: string;
}

export async function createTestAccount(name = 'test account'): Promise<TestAccount> {
  const { id: accountId } = await createAccount(testDb('identity'), name);
  const { id: tokenId, secret: token } = await createEventToken(testDb('identity'), accountId);
  return { accountId, token, tokenId };
}

export interface HttpResult {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

/**
 * One HTTP request. Every answer to an operation of the public API's OpenAPI document is validated
 * against it (test/support/openapi.ts), so no integration test can pass on an answer the document
 * does not describe.
 */
export async function request(url: string, init: RequestInit = {}): Promise<HttpResult> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  const result = { status: res.status, body, headers: res.headers };
  const method = init.method ?? 'GET';
  if (isDocumented(method, url)) expectConformsToInterface(method, url, result);
  return result;
}

export function postEvent(baseUrl: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return request(`${baseUrl}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  { timeoutMs = 30_000, intervalMs = 100, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const uniqueEmail = (tag = 'person') => `${tag}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.com`;

export async function createTestApiKey(accountId: string, scopes: Scope[]): Promise<{ id: string; key: string }> {
  const { id, secret } = await createApiKey(testDb('identity'), accountId, scopes);
  return { id, key: secret };
}

/** The enrichment and playbook services and a gateway wired to both: the management API's stack. */
export async function startManagementStack(
  gatewayOverrides: Record<string, string> = {},
  { webhooks: withWebhooks = false, visitors: withVisitors = withWebhooks }: { webhooks?: boolean; visitors?: boolean } = {},
): Promise<{
  gateway: RunningGateway;
  enrichment: RunningEnrichmentService;
  playbook: RunningPlaybookService;
  webhooks?: RunningWebhooksService;
  visitors?: RunningVisitorsService;
  stop(): Promise<void>;
}> {
  // The webhooks and visitors services only for the tests that need them (erasure reaches the
  // delivery records and the visitors' identity links: by default the one comes with the other).
  // The webhooks service asks the stack's enrichment for an identified visitor's details.
  const enrichmentStarted = startTestEnrichmentService();
  const [enrichment, playbook, webhooks, visitors] = await Promise.all([
    enrichmentStarted,
    startTestPlaybookService(),
    withWebhooks ? enrichmentStarted.then((e) => startTestWebhooksService({ ENRICHMENT_URL: e.url })) : Promise.resolve(undefined),
    withVisitors ? startTestVisitorsService() : Promise.resolve(undefined),
  ]);
  const gateway = await startTestGateway({
    ENRICHMENT_URL: enrichment.url,
    PLAYBOOK_URL: playbook.url,
    ...(webhooks ? { WEBHOOKS_URL: webhooks.url } : {}),
    ...(visitors ? { VISITORS_URL: visitors.url } : {}),
    ...gatewayOverrides,
  });
  return {
    gateway,
    enrichment,
    playbook,
    ...(webhooks ? { webhooks } : {}),
    ...(visitors ? { visitors } : {}),
    async stop() {
      await gateway.stop();
      await Promise.all([enrichment.stop(), playbook.stop(), webhooks?.stop(), visitors?.stop()]);
    },
  };
}

/** Sends each name once (for a throwaway person) and waits until the catalog has them all: rule 3's precondition. */
export async function sendNamesOnce(gatewayUrl: string, { accountId, token }: TestAccount, names: string[]): Promise<void> {
  for (const event of names) {
    const res = await postEvent(gatewayUrl, token, { event, email: uniqueEmail('catalog') });
    if (res.status !== 200) throw new Error(`sending ${event} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  await waitFor(
    async () => {
      const known = new Set((await eventCatalog(testDb('playbook'), accountId)).map((e) => e.name));
      return names.every((n) => known.has(n));
    },
    { what: `${names.join(', ')} in the catalog`, timeoutMs: 20_000 },
  );
}
