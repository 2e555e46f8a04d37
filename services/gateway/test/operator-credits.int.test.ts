// The account's credit limit and all-time usage through the operator API: PUT
// /operator/accounts/{id}/credits and GET /operator/accounts/{id}/usage, relayed to the enrichment
// service's internal routes (which check the body and own the tables). A real gateway and
// enrichment service, Postgres; an unreachable enrichment service is 503 with Retry-After.
import { randomBytes, randomUUID } from 'node:crypto';
import type { RunningEnrichmentService } from '@glimpse/enrichment';
import type { RunningGateway } from '@glimpse/gateway';
import { CREDIT_LIMIT_MAX } from '@glimpse/validation';
import { closeTestDb, createTestAccount, request, startTestEnrichmentService, startTestGateway, testDb } from '../../../test/support/stack';
import { freePort } from '../../../test/support/private-postgres';

const TOKEN = randomBytes(32).toString('hex');

let gateway: RunningGateway;
let enrichment: RunningEnrichmentService;
beforeAll(async () => {
  enrichment = await startTestEnrichmentService();
  gateway = await startTestGateway({ OPERATOR_TOKEN: TOKEN, ENRICHMENT_URL: enrichment.url });
});
afterAll(async () => {
  await gateway?.stop();
  await enrichment?.stop();
  await closeTestDb();
});

function operator(method: string, path: string, body?: unknown, { token = TOKEN, base = gateway.url }: { token?: string | null; base?: string } = {}) {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return request(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

const creditRow = (accountId: string) => testDb('enrichment').enrichmentCredit.findUnique({ where: { accountId } });

describe('PUT /operator/accounts/{id}/credits', () => {
  it('sets, changes and removes the limit, answering it; the enrichment service holds it', async () => {
    const { accountId } = await createTestAccount();
    expect(await creditRow(accountId)).toBeNull();

    const set = await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: 7 });
    expect({ status: set.status, body: set.body }).toEqual({ status: 200, body: { credits: 7 } });
    expect(set.headers.get('cache-control')).toBe('no-store');
    expect((await creditRow(accountId))?.creditLimit).toBe(7);

    expect((await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: CREDIT_LIMIT_MAX })).body).toEqual({ credits: CREDIT_LIMIT_MAX });
    expect((await creditRow(accountId))?.creditLimit).toBe(CREDIT_LIMIT_MAX);
    expect((await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: 0 })).body).toEqual({ credits: 0 });
    expect((await creditRow(accountId))?.creditLimit).toBe(0);

    const removed = await operator('PUT', `/operator/accounts/${accountId.toUpperCase()}/credits`, { credits: null });
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: { credits: null } });
    expect(await creditRow(accountId)).toMatchObject({ creditLimit: null });
  });

  it('refuses a limit that is not a whole number from 0 to the maximum, or null (400 {error, message}), and changes nothing', async () => {
    const { accountId } = await createTestAccount();
    expect((await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: 5 })).status).toBe(200);
    for (const body of [{ credits: -1 }, { credits: 1.5 }, { credits: '7' }, { credits: CREDIT_LIMIT_MAX + 1 }, {}, { credits: 3, extra: true }, [3], null]) {
      const res = await operator('PUT', `/operator/accounts/${accountId}/credits`, body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_request', message: expect.any(String) } });
    }
    const bad = await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: -1 });
    expect(bad.body.message).toBe(`credits must be a whole number from 0 to ${CREDIT_LIMIT_MAX}, or null for no limit`);
    expect((await creditRow(accountId))?.creditLimit).toBe(5);
  });

  it('answers 404 for an account that does not exist (and writes no limit for it), 400 for an id that is not a UUID, 401 without the operator token', async () => {
    const nobody = randomUUID();
    const missing = await operator('PUT', `/operator/accounts/${nobody}/credits`, { credits: 3 });
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 404, body: { error: 'not_found', message: `account ${nobody} does not exist` } });
    expect(await creditRow(nobody)).toBeNull();
    expect((await operator('PUT', '/operator/accounts/acme/credits', { credits: 3 })).status).toBe(400);

    const { accountId } = await createTestAccount();
    expect((await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: 3 }, { token: null })).status).toBe(401);
    expect((await operator('PUT', `/operator/accounts/${accountId}/credits`, { credits: 3 }, { token: randomBytes(32).toString('hex') })).status).toBe(401);
    expect(await creditRow(accountId)).toBeNull();
  });
});

/** The current billing period (the calendar month, UTC) with its billed persons. */
const thisPeriod = (personsBilled: number) => ({ start: `${new Date().toISOString().slice(0, 7)}-01`, personsBilled });

describe('GET /operator/accounts/{id}/usage', () => {
  it("answers the account's usage of all time: the rolled-up days and the ledger not rolled up yet, this account's only", async () => {
    const { accountId } = await createTestAccount();
    const { accountId: other } = await createTestAccount();
    const zero = await operator('GET', `/operator/accounts/${accountId}/usage`);
    expect({ status: zero.status, body: zero.body }).toEqual({ status: 200, body: { identityMatches: 0, enrichedRecords: 0, period: thisPeriod(0) } });

    const db = testDb('enrichment');
    await db.usageDay.createMany({
      data: [
        { accountId, day: new Date('2024-02-29'), identityMatches: 10, enrichedRecords: 9 },
        { accountId, day: new Date('2026-01-01'), identityMatches: 3, enrichedRecords: 2 },
        { accountId: other, day: new Date('2026-01-01'), identityMatches: 100, enrichedRecords: 100 },
      ],
    });
    await db.usageEntry.createMany({
      data: [
        { accountId, day: new Date() },
        { accountId, day: new Date() },
        { accountId: other, day: new Date() },
      ],
    });

    const usage = await operator('GET', `/operator/accounts/${accountId}/usage`);
    expect({ status: usage.status, body: usage.body }).toEqual({ status: 200, body: { identityMatches: 15, enrichedRecords: 13, period: thisPeriod(0) } });
    expect((await operator('GET', `/operator/accounts/${other}/usage`)).body).toEqual({ identityMatches: 101, enrichedRecords: 101, period: thisPeriod(0) });
  });

  it('answers 404 for an account that does not exist, 400 for an id that is not a UUID, 401 without the operator token', async () => {
    const nobody = randomUUID();
    expect((await operator('GET', `/operator/accounts/${nobody}/usage`)).body).toEqual({ error: 'not_found', message: `account ${nobody} does not exist` });
    expect((await operator('GET', '/operator/accounts/acme/usage')).status).toBe(400);
    const { accountId } = await createTestAccount();
    expect((await operator('GET', `/operator/accounts/${accountId}/usage`, undefined, { token: null })).status).toBe(401);
  });
});

it('when the enrichment service cannot be reached, then both answer 503 with Retry-After, never 500', async () => {
  const cut = await startTestGateway({ OPERATOR_TOKEN: TOKEN, ENRICHMENT_URL: `http://127.0.0.1:${await freePort()}` });
  try {
    const { accountId } = await createTestAccount();
    for (const [method, path, body] of [
      ['PUT', 'credits', { credits: 3 }],
      ['GET', 'usage', undefined],
    ] as const) {
      const res = await operator(method, `/operator/accounts/${accountId}/${path}`, body, { base: cut.url });
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 503, error: 'service_unavailable' });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(await creditRow(accountId)).toBeNull();
  } finally {
    await cut.stop();
  }
});
