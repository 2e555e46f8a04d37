// The operator's account work (the CLI through the front door): POST /operator/accounts and DELETE
// /operator/accounts/{id} with their event on the accounts topic, and /operator/accounts/{id}/account/…,
// the account's management API acted on by the operator, held to the CONFIGURED caps of the gateway
// and the playbook service (not their defaults) and to the workflows add-on, as /account is. A real
// gateway, playbook, enrichment and visitors service, Postgres and Kafka.
import { randomBytes, randomUUID } from 'node:crypto';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS } from '@glimpse/messaging';
import type { RunningPlaybookService } from '@glimpse/playbook';
import type { RunningEnrichmentService } from '@glimpse/enrichment';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { closeTestDb, request, startTestEnrichmentService, startTestGateway, startTestPlaybookService, testDb } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { endOffsets, readTopic } from '../../../test/support/kafka-helpers';

const TOKEN = randomBytes(32).toString('hex');
// Well below the defaults (200 playbooks, 50 event tokens): the answers must come from these.
const PLAYBOOKS_CAP = 2;
const EVENT_TOKENS_CAP = 2;

let gateway: RunningGateway;
let playbook: RunningPlaybookService;
let enrichment: RunningEnrichmentService;
let visitors: RunningVisitorsService;
beforeAll(async () => {
  [playbook, enrichment, visitors] = await Promise.all([
    startTestPlaybookService({ PLAYBOOKS_PER_ACCOUNT: String(PLAYBOOKS_CAP) }),
    startTestEnrichmentService(),
    startTestVisitorsService(),
  ]);
  gateway = await startTestGateway({
    OPERATOR_TOKEN: TOKEN,
    PLAYBOOK_URL: playbook.url,
    ENRICHMENT_URL: enrichment.url,
    VISITORS_URL: visitors.url,
    EVENT_TOKENS_PER_ACCOUNT: String(EVENT_TOKENS_CAP),
  });
});
afterAll(async () => {
  await gateway?.stop();
  await Promise.all([playbook?.stop(), enrichment?.stop(), visitors?.stop()]);
  await closeTestDb();
});

function operator(method: string, path: string, body?: unknown, token: string | null = TOKEN) {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return request(`${gateway.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function newAccount(workflows = true): Promise<string> {
  const res = await operator('POST', '/operator/accounts', { name: 'operator accounts test', workflows });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

describe('POST and DELETE /operator/accounts', () => {
  it('creates an account (add-on as asked) and deletes it, each with its event published on the accounts topic', async () => {
    const from = await endOffsets(TOPICS.accounts);
    const created = await operator('POST', '/operator/accounts', { name: 'Acme', workflows: true });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    expect(created.body).toEqual({ id, name: 'Acme', addons: { workflows: true }, event: 'published' });
    expect(await testDb('identity').account.findUniqueOrThrow({ where: { id } })).toMatchObject({ name: 'Acme', workflows: true });

    const deleted = await operator('DELETE', `/operator/accounts/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true, deletedAt: expect.any(String), event: 'published' });
    expect(await testDb('identity').account.findUnique({ where: { id } })).toBeNull();
    const messages = await readTopic(TOPICS.accounts, { from, until: (read) => read.some((m) => m.key === id && m.json?.type === 'account.deleted') });
    expect(messages.filter((m) => m.key === id).map((m) => m.json?.type)).toEqual(['account.created', 'account.deleted']);

    expect((await operator('DELETE', `/operator/accounts/${id}`)).body).toMatchObject({ error: 'not_found' });
    expect((await operator('DELETE', '/operator/accounts/not-a-uuid')).status).toBe(400);
  });

  it('refuses a missing name or a non-boolean workflows (400), and anything without the operator token (401)', async () => {
    const count = await testDb('identity').account.count();
    for (const body of [{}, { name: '' }, { name: 'x', workflows: 'yes' }]) {
      expect((await operator('POST', '/operator/accounts', body)).body).toMatchObject({ error: 'invalid_request' });
    }
    expect((await operator('POST', '/operator/accounts', { name: 'x' }, null)).status).toBe(401);
    expect((await operator('POST', '/operator/accounts', { name: 'x' }, randomBytes(32).toString('hex'))).status).toBe(401);
    const id = await newAccount();
    expect((await operator('DELETE', `/operator/accounts/${id}`, undefined, null)).status).toBe(401);
    expect(await testDb('identity').account.findUnique({ where: { id } })).not.toBeNull();
    expect(await testDb('identity').account.count()).toBeGreaterThanOrEqual(count + 1);
  });

  it('is not in the public OpenAPI document', async () => {
    const doc = await request(`${gateway.url}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(JSON.stringify(doc.body)).not.toContain('/operator');
  });
});

describe('/operator/accounts/{id}/account/…: the management API acted on by the operator', () => {
  it("holds playbooks to the playbook service's configured cap, not the default", async () => {
    const id = await newAccount();
    for (let i = 0; i < PLAYBOOKS_CAP; i++) {
      expect((await operator('POST', `/operator/accounts/${id}/account/playbooks`, { name: `P${i}`, exits: ['purchase'] })).status).toBe(201);
    }
    const refused = await operator('POST', `/operator/accounts/${id}/account/playbooks`, { name: 'one too many' });
    expect([refused.status, (refused.body as { error: string }).error]).toEqual([409, 'limit_reached']);
    const listed = await operator('GET', `/operator/accounts/${id}/account/playbooks`);
    expect((listed.body as { items: unknown[] }).items).toHaveLength(PLAYBOOKS_CAP);
  });

  it("holds event tokens to the gateway's configured cap; a token of another account is not found", async () => {
    const id = await newAccount();
    const ids: string[] = [];
    for (let i = 0; i < EVENT_TOKENS_CAP; i++) {
      const created = await operator('POST', `/operator/accounts/${id}/account/event-tokens`);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ token: expect.stringMatching(/^gle_/) });
      ids.push((created.body as { id: string }).id);
    }
    expect((await operator('POST', `/operator/accounts/${id}/account/event-tokens`)).body).toMatchObject({ error: 'limit_reached' });
    const other = await newAccount();
    expect((await operator('DELETE', `/operator/accounts/${other}/account/event-tokens/${ids[0]}`)).status).toBe(404);
    expect((await operator('DELETE', `/operator/accounts/${id}/account/event-tokens/${ids[0]}`)).status).toBe(204);
    expect((await testDb('identity').eventToken.findUniqueOrThrow({ where: { id: ids[0]! } })).revokedAt).not.toBeNull();
  });

  it('refuses the workflows paths for an account without the add-on (403), an unknown account (404) and a bad id (400)', async () => {
    const plain = await newAccount(false);
    for (const [method, path, body] of [
      ['POST', 'playbooks', { name: 'x' }],
      ['POST', 'event-tokens', undefined],
      ['GET', 'playbooks', undefined],
    ] as const) {
      const res = await operator(method, `/operator/accounts/${plain}/account/${path}`, body);
      expect([res.status, (res.body as { error: string }).error]).toEqual([403, 'addon_required']);
    }
    // Outside the add-on: sites and API keys are the account's still.
    expect((await operator('POST', `/operator/accounts/${plain}/account/api-keys`, { scopes: ['visitors:read'] })).status).toBe(201);
    expect((await operator('POST', `/operator/accounts/${plain}/account/sites`, { name: 'Shop', origins: ['https://shop.test'] })).status).toBe(201);
    expect((await operator('GET', `/operator/accounts/${randomUUID()}/account/playbooks`)).body).toMatchObject({ error: 'not_found' });
    expect((await operator('GET', '/operator/accounts/nope/account/playbooks')).status).toBe(400);
    expect((await operator('GET', `/operator/accounts/${plain}/account/playbooks`, undefined, null)).status).toBe(401);
  });
});
