// The enrichment API beyond the single lookup, through the real gateway, Redis and Postgres:
// matching by email_sha256 and pronet_url, `required` fields, Idempotency-Key billing once, the
// bulk call billed per match with a 402 per item, and the credits left in a header.
import { createHash } from 'node:crypto';
import { generatePerson, usageTotals } from '@glimpse/enrichment';
import { closeTestDb, createTestAccount, createTestApiKey, request, startLookupStack, testDb, type HttpResult } from '../../../test/support/stack';
import { cli, enrich, importPersonRecords, randomObjectId, randomSeed, uniqueTag } from './lookup-test-helpers';

const seed = randomSeed();
const people = [0, 1, 2].map((i) => generatePerson(i, seed));
const [ada, bob, cy] = people as [ReturnType<typeof generatePerson>, ReturnType<typeof generatePerson>, ReturnType<typeof generatePerson>];
// A person with an email and nothing else: no job title, no company.
const sparse = { profile: { id: randomObjectId() }, traits: { work_email: `sparse.${uniqueTag()}@example.com` } };

let stack: Awaited<ReturnType<typeof startLookupStack>>;
let url: string;

beforeAll(async () => {
  stack = await startLookupStack();
  url = stack.gateway.url;
  expect(await importPersonRecords([...people, sparse])).toMatchObject({ imported: 4, skipped: 0 });
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

async function newAccountKey(credits?: number): Promise<{ accountId: string; key: string }> {
  const { accountId } = await createTestAccount();
  const { key } = await createTestApiKey(accountId, ['enrichment:read']);
  if (credits !== undefined) expect((await cli('account', 'set-credits', '--account', accountId, '--credits', String(credits))).code).toBe(0);
  return { accountId, key };
}

const billed = async (accountId: string) => (await usageTotals(testDb('enrichment'), accountId)).enrichedRecords;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function bulk(key: string, items: unknown[], headers: Record<string, string> = {}): Promise<HttpResult> {
  return request(`${url}/visitors/enrichment/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ items }),
  });
}

describe('matching by email_sha256 and pronet_url', () => {
  it('when a person is looked up by the SHA-256 of an email or by the profile URL in another spelling, then the same record is answered', async () => {
    const { key } = await newAccountKey();
    const byEmail = await enrich(url, key, { email: ada.traits.work_email });
    expect(byEmail.status).toBe(200);
    const byHash = await enrich(url, key, { email_sha256: sha256(ada.traits.work_email!.toLowerCase()).toUpperCase() });
    expect(byHash).toMatchObject({ status: 200, body: byEmail.body });
    const profileUrl = ada.social.pronet.url!.replace('https://www.', 'http://').toUpperCase() + '/?trk=x';
    expect(await enrich(url, key, { pronet_url: profileUrl })).toMatchObject({ status: 200, body: byEmail.body });
  });

  it('when the hash or URL is malformed, then it is 400; when nobody has it, then 404 and not billed', async () => {
    const { accountId, key } = await newAccountKey();
    expect(await enrich(url, key, { email_sha256: 'abc' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: expect.stringMatching(/email_sha256/) },
    });
    expect(await enrich(url, key, { pronet_url: 'nope' })).toMatchObject({ status: 400, body: { message: expect.stringMatching(/pronet_url/) } });
    expect((await enrich(url, key, { email_sha256: sha256(`nobody.${uniqueTag()}@example.com`) })).status).toBe(404);
    expect(await billed(accountId)).toBe(0);
  });
});

describe('required fields', () => {
  it('when a matched record lacks a required field, then it is 404 and not billed; with every field present it is 200 and billed once', async () => {
    const { accountId, key } = await newAccountKey();
    const missing = await enrich(url, key, { email: sparse.traits.work_email, required: ['job.title'] });
    expect(missing).toMatchObject({ status: 404, body: { error: 'not_found', message: expect.stringMatching(/required/) } });
    expect(await billed(accountId)).toBe(0);
    expect((await enrich(url, key, { email: sparse.traits.work_email })).status).toBe(200);
    expect((await enrich(url, key, { email: bob.traits.work_email, required: ['job.title', 'company.name'] })).status).toBe(200);
    expect(await billed(accountId)).toBe(2);
  });

  it('when required names a path the record does not have, then it is 400', async () => {
    const { key } = await newAccountKey();
    expect(await enrich(url, key, { email: bob.traits.work_email, required: ['job.salary'] })).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/unknown field path/) },
    });
  });
});

describe('Idempotency-Key on enrichment', () => {
  it('when a lookup is retried with the same key and body, then it gets the same answer and is billed once; another body with the key is 422', async () => {
    const { accountId, key } = await newAccountKey();
    const headers = { 'idempotency-key': `enrich-${uniqueTag()}` };
    const first = await enrich(url, key, { email: cy.traits.work_email, phone: cy.traits.mobile_phone }, headers);
    const retry = await enrich(url, key, { phone: cy.traits.mobile_phone, email: cy.traits.work_email }, headers);
    expect(first.status).toBe(200);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(await billed(accountId)).toBe(1);
    const other = await enrich(url, key, { email: ada.traits.work_email }, headers);
    expect(other).toMatchObject({ status: 422, body: { error: 'idempotency_key_reused' } });
    expect(await billed(accountId)).toBe(1);
  });
});

describe('POST /visitors/enrichment/bulk', () => {
  it('when credits run out within a bulk call, then each item is answered in order, matches are billed until the limit and the rest are 402', async () => {
    const { accountId, key } = await newAccountKey(3);
    const nobody = `nobody.${uniqueTag()}@example.com`;
    const res = await bulk(key, [
      { email: ada.traits.work_email },
      { email: nobody },
      { phone: bob.traits.mobile_phone },
      { email: 'not an email' },
      { email: sparse.traits.work_email, required: ['company.name'] },
      { email: cy.traits.work_email },
      { email: ada.traits.work_email },
      { email: nobody },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([200, 404, 200, 400, 404, 200, 402, 404]);
    expect(res.body.billed).toBe(3);
    expect(res.body.results[0].record.profile.id).toBe(ada.profile.id);
    expect(res.body.results[6]).toEqual({ status: 402, error: 'payment_required', message: expect.any(String) });
    expect(res.headers.get('credits-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-limit')).not.toBeNull();
    expect(await billed(accountId)).toBe(3);
  });

  it('when a bulk call is retried with its Idempotency-Key, then the answer is the same and nothing is billed again', async () => {
    const { accountId, key } = await newAccountKey();
    const headers = { 'idempotency-key': `bulk-${uniqueTag()}` };
    const items = [{ email: ada.traits.work_email }, { email: bob.traits.work_email }];
    const first = await bulk(key, items, headers);
    const retry = await bulk(key, items, headers);
    expect(first.body.billed).toBe(2);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(await billed(accountId)).toBe(2);
  });

  it('when the call is malformed or holds more than 100 lookups, then it is 400 whole', async () => {
    const { key } = await newAccountKey();
    expect(await bulk(key, [])).toMatchObject({ status: 400, body: { message: 'items must hold at least one lookup' } });
    expect(
      await bulk(
        key,
        Array.from({ length: 101 }, () => ({ email: 'a@example.com' })),
      ),
    ).toMatchObject({ status: 400, body: { message: 'a bulk enrichment holds at most 100 lookups' } });
  });
});

describe('credits left', () => {
  it('when the account has a credit limit, then every lookup answer tells the credits left, errors included; without a limit it does not', async () => {
    const limited = await newAccountKey(5);
    const hit = await enrich(url, limited.key, { email: ada.traits.work_email });
    expect(hit.headers.get('credits-remaining')).toBe('4');
    expect(hit.headers.get('ratelimit-remaining')).not.toBeNull();
    const miss = await enrich(url, limited.key, { email: `nobody.${uniqueTag()}@example.com` });
    expect(miss.status).toBe(404);
    expect(miss.headers.get('credits-remaining')).toBe('4');
    const unlimited = await newAccountKey();
    expect((await enrich(url, unlimited.key, { email: ada.traits.work_email })).headers.get('credits-remaining')).toBeNull();
  });
});
