// Companies (firmographics) through the real gateway, enrichment service, Redis and Postgres:
// POST /companies/enrichment and its bulk form billed per match exactly as a person's enrichment
// (404 and 400 unbilled, 402 once credits are spent, an Idempotency-Key replay billed once), and
// the unbilled internal lookup other services compose with. Every public answer is checked against
// the OpenAPI document by request().
import { randomBytes, randomUUID } from 'node:crypto';
import { devInternalToken } from '@glimpse/config';
import { importCompanies, setCreditLimit, usageTotals } from '@glimpse/enrichment';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { createEnrichmentClient, type EnrichmentClient } from '../src/data/enrichment-client';
import { closeTestDb, createTestAccount, createTestApiKey, request, startLookupStack, testDb, type HttpResult } from '../../../test/support/stack';

const tag = randomBytes(5).toString('hex');
const domain = (name: string) => `${name}.${tag}.example`;
const acme = {
  domain: domain('acme'),
  name: 'Acme',
  industry: 'Computer Software',
  size: '51-200',
  employees: 120,
  founded: 2009,
  location: { country: 'United States', region: 'California', city: 'Oakland' },
  profile_url: 'https://www.pronet.example/company/acme',
};
const globex = { domain: domain('globex'), name: 'Globex', industry: 'Manufacturing', size: '1001-5000' };
const initech = { domain: domain('initech'), name: 'Initech', industry: 'computer software', size: '11-50' };

let stack: Awaited<ReturnType<typeof startLookupStack>>;
let url: string;
let internal: EnrichmentClient;

async function* linesOf(values: unknown[]): AsyncIterable<string> {
  for (const value of values) yield JSON.stringify(value);
}

beforeAll(async () => {
  stack = await startLookupStack();
  url = stack.gateway.url;
  internal = createEnrichmentClient({ baseUrl: stack.enrichment.url, internalToken: devInternalToken('gateway'), timeoutMs: 10_000 });
  expect(await importCompanies(linesOf([acme, globex, initech]), { db: testDb('enrichment') })).toMatchObject({ imported: 3, skipped: 0 });
});

afterAll(async () => {
  await internal?.close();
  await stack?.stop();
  await testDb('enrichment').company.deleteMany({ where: { domain: { endsWith: `.${tag}.example` } } });
  await closeTestDb();
});

async function newAccountKey(credits?: number): Promise<{ accountId: string; key: string }> {
  const { accountId } = await createTestAccount();
  const { key } = await createTestApiKey(accountId, ['enrichment:read']);
  if (credits !== undefined) await setCreditLimit(testDb('enrichment'), accountId, credits);
  return { accountId, key };
}

function post(path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
}

const usage = (accountId: string) => usageTotals(testDb('enrichment'), accountId);
const { profile_url: pronetUrl, ...firmographics } = acme;
/** Acme as the API serves it. */
const served = { ...firmographics, pronet_url: pronetUrl };

describe('POST /companies/enrichment', () => {
  it('when a known domain is asked in another spelling, then the company record is answered and billed once as one identity match and one enriched record', async () => {
    const { accountId, key } = await newAccountKey();
    const res = await post('/companies/enrichment', key, { domain: `https://WWW.${acme.domain.toUpperCase()}/about` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(served);
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
  });

  it('when nobody has the domain, then it is 404 and not billed; a domain that is none is 400', async () => {
    const { accountId, key } = await newAccountKey();
    expect(await post('/companies/enrichment', key, { domain: domain('nobody') })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await post('/companies/enrichment', key, { domain: 'localhost' })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await post('/companies/enrichment', key, { email: 'ada@example.com' })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await usage(accountId)).toEqual({ identityMatches: 0, enrichedRecords: 0 });
  });

  it('when a lookup is retried with its Idempotency-Key, then the same answer comes back and it is billed once; the key with another body is 422', async () => {
    const { accountId, key } = await newAccountKey();
    const idempotency = { 'Idempotency-Key': `company-${randomUUID()}` };
    const first = await post('/companies/enrichment', key, { domain: globex.domain }, idempotency);
    const again = await post('/companies/enrichment', key, { domain: globex.domain }, idempotency);
    expect(first.status).toBe(200);
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
    expect((await post('/companies/enrichment', key, { domain: acme.domain }, idempotency)).status).toBe(422);
  });

  it("when the account's credits are spent, then a match is 402 with no credits left, and a domain nobody has is still 404", async () => {
    const { accountId, key } = await newAccountKey(1);
    const first = await post('/companies/enrichment', key, { domain: acme.domain });
    expect(first.status).toBe(200);
    expect(first.headers.get('credits-remaining')).toBe('0');
    expect(await post('/companies/enrichment', key, { domain: globex.domain })).toMatchObject({ status: 402, body: { error: 'payment_required' } });
    expect((await post('/companies/enrichment', key, { domain: domain('nobody') })).status).toBe(404);
    expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
  });

  it('when the API key lacks enrichment:read, then it is 403', async () => {
    const { accountId } = await createTestAccount();
    const { key } = await createTestApiKey(accountId, ['visitors:read']);
    expect((await post('/companies/enrichment', key, { domain: acme.domain })).status).toBe(403);
  });
});

describe('POST /companies/enrichment/bulk', () => {
  it('when a bulk call mixes a match, an unknown domain and a bad one, then each is answered in order and only the match is billed', async () => {
    const { accountId, key } = await newAccountKey();
    const res = await post('/companies/enrichment/bulk', key, { items: [{ domain: acme.domain }, { domain: domain('nobody') }, { domain: 'not a domain' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      billed: 1,
      results: [
        { status: 200, record: served },
        { status: 404, error: 'not_found', message: expect.any(String) },
        { status: 400, error: 'invalid_request', message: expect.any(String) },
      ],
    });
    expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
  });

  it('when the credits run out inside a bulk call, then the items past them are 402, and an empty call is 400', async () => {
    const { key } = await newAccountKey(1);
    const res = await post('/companies/enrichment/bulk', key, { items: [{ domain: acme.domain }, { domain: globex.domain }] });
    expect(res.body).toMatchObject({ billed: 1, results: [{ status: 200 }, { status: 402, error: 'payment_required' }] });
    expect((await post('/companies/enrichment/bulk', key, { items: [] })).status).toBe(400);
  });
});

describe('the internal companies lookup', () => {
  it('when other services ask for many domains, then the companies that exist come back, unbilled, whatever the spelling', async () => {
    const accountId = randomUUID();
    const res = await internal.companies(accountId, { domains: [`WWW.${acme.domain}`, globex.domain, domain('nobody'), 'not a domain'] });
    expect(res.status).toBe(200);
    expect((res.body as { items: { domain: string }[] }).items.map((c) => c.domain)).toEqual([acme.domain, globex.domain]);
    expect(await usage(accountId)).toEqual({ identityMatches: 0, enrichedRecords: 0 });
  });

  it('when an industry (any case) and a size are given, then only the companies of both are answered', async () => {
    const domains = [acme.domain, globex.domain, initech.domain];
    const byIndustry = await internal.companies(randomUUID(), { domains, industry: 'COMPUTER software' });
    expect((byIndustry.body as { items: { domain: string }[] }).items.map((c) => c.domain)).toEqual([acme.domain, initech.domain]);
    const bySize = await internal.companies(randomUUID(), { domains, industry: 'computer software', size: '11-50' });
    expect(bySize.body).toEqual({ items: [expect.objectContaining({ domain: initech.domain, name: 'Initech' })] });
  });

  it('when the request breaks a rule (not a list, more than 10,000 domains), then it is 400', async () => {
    expect((await internal.companies(randomUUID(), { domains: acme.domain })).status).toBe(400);
    expect((await internal.companies(randomUUID(), { domains: Array.from({ length: 10_001 }, (_, i) => `d${i}.example`) })).status).toBe(400);
  });

  it('when the webhooks service asks, then the lookup is its to call but the billed enrichment is not', async () => {
    const call = (path: string, body: unknown) =>
      request(`${stack.enrichment.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: devInternalToken('webhooks'), [INTERNAL_HEADERS.account]: randomUUID() },
        body: JSON.stringify(body),
      });
    expect((await call('/internal/companies/lookup', { domains: [acme.domain] })).status).toBe(200);
    expect((await call('/internal/companies/enrichment', { domain: acme.domain })).status).toBe(403);
  });
});
