// Every status of the two lookups (api.md §4.1, §4.2, §5, §7) through the gateway over HTTP, each
// with its {error, message} body: credentials and scopes, revocation, visitor ids, tenant
// isolation, enrichment input, size and media type, credits; and failures are never billed.
import { randomInt } from 'node:crypto';
import { generateCredential, revokeCredential } from '@glimpse/auth';
import { creditLimitOf, generatePerson, setCreditLimit, usageTotals } from '@glimpse/enrichment';
import { closeTestDb, createTestAccount, createTestApiKey, startLookupStack, testDb, type HttpResult } from '../../../test/support/stack';
import { cli, details, enrich, expectErrorBody, importPersonRecords, importVisitorRows, randomObjectId, randomSeed } from './lookup-test-helpers';

const seed = randomSeed();
const person = generatePerson(0, seed);
const otherPerson = generatePerson(1, seed);
const workEmail = person.traits.work_email!;

let stack: Awaited<ReturnType<typeof startLookupStack>>;
let url: string;
let owner: { accountId: string; token: string; key: string };
// Mixed case on purpose: ids are case-insensitive (api.md §2.2).
let visitorId: string;

/** A 24-hex id with letters in it, so upper and lower case differ. */
function idWithLetters(): string {
  for (;;) {
    const id = randomObjectId();
    if (/[a-f]/.test(id)) return id;
  }
}

async function accountWithKey(scopes: Parameters<typeof createTestApiKey>[1] = ['visitors:read', 'enrichment:read']) {
  const account = await createTestAccount();
  const { key, id } = await createTestApiKey(account.accountId, scopes);
  return { ...account, key, keyId: id };
}

/** Usage and the credit limit: credits used are the enriched records billed. */
async function billing(accountId: string) {
  return { ...(await usageTotals(testDb('enrichment'), accountId)), creditLimit: await creditLimitOf(testDb('enrichment'), accountId) };
}

beforeAll(async () => {
  stack = await startLookupStack();
  url = stack.gateway.url;
  const report = await importPersonRecords([person, otherPerson]);
  expect(report).toMatchObject({ imported: 2, skipped: 0 });
  owner = await accountWithKey();
  const id = idWithLetters();
  visitorId = id.slice(0, 12).toUpperCase() + id.slice(12);
  expect(await importVisitorRows(owner.accountId, [{ visitorId, email: workEmail }])).toMatchObject({ imported: 1, skipped: 0 });
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

const lookups: [string, (key: string | undefined, headers?: Record<string, string>) => Promise<HttpResult>][] = [
  ['the details lookup', (key, headers) => details(url, key, visitorId, headers)],
  ['the enrichment lookup', (key, headers) => enrich(url, key, { email: workEmail }, headers)],
];

describe('credentials (api.md §5)', () => {
  it('when the owner calls with a key holding both scopes, then both lookups answer 200 (the baseline every 401/403 below departs from)', async () => {
    for (const [, call] of lookups) expect((await call(owner.key)).status).toBe(200);
  });

  it.each(lookups)('when %s gets no, a malformed, an unknown, a revoked key, an event token or another scheme, then 401 unauthorized', async (_name, call) => {
    const revoked = await accountWithKey();
    await revokeCredential(testDb('identity'), 'api_key', revoked.accountId, revoked.keyId);
    const attempts: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['a malformed key', { authorization: 'Bearer glk_tooshort' }],
      ['an unknown, well-formed key', { authorization: `Bearer ${generateCredential('api_key').plain}` }],
      ['a revoked key', { authorization: `Bearer ${revoked.key}` }],
      ['an event token of the same account', { authorization: `Bearer ${owner.token}` }],
      ['the right key in another scheme', { authorization: `Basic ${owner.key}` }],
    ];
    for (const [what, headers] of attempts) {
      const res = await call(undefined, headers);
      expect({ what, status: res.status }).toEqual({ what, status: 401 });
      expectErrorBody(res, 401, 'unauthorized');
    }
  });

  it("when a key lacks the endpoint's scope, then 403 forbidden naming the scope, even for a visitor that does not exist", async () => {
    const enrichOnly = await createTestApiKey(owner.accountId, ['enrichment:read']);
    const visitorsOnly = await createTestApiKey(owner.accountId, ['visitors:read']);
    const manageOnly = await createTestApiKey(owner.accountId, ['account:manage']);

    for (const key of [enrichOnly.key, manageOnly.key]) {
      for (const id of [visitorId, randomObjectId()]) {
        const res = await details(url, key, id);
        expectErrorBody(res, 403, 'forbidden');
        expect(res.body.message).toContain('visitors:read');
      }
    }
    for (const key of [visitorsOnly.key, manageOnly.key]) {
      const res = await enrich(url, key, { email: workEmail });
      expectErrorBody(res, 403, 'forbidden');
      expect(res.body.message).toContain('enrichment:read');
    }
    // The same keys work where they have the scope.
    expect((await details(url, visitorsOnly.key, visitorId)).status).toBe(200);
    expect((await enrich(url, enrichOnly.key, { email: workEmail })).status).toBe(200);
  });

  it('when a key in use is revoked with the CLI, then both lookups answer 401 within 5 s and stay 401', async () => {
    const account = await accountWithKey();
    await importVisitorRows(account.accountId, [{ visitorId, email: workEmail }]);
    // Warm the gateway's credential cache: revocation must get past it.
    expect((await details(url, account.key, visitorId)).status).toBe(200);
    expect((await enrich(url, account.key, { email: workEmail })).status).toBe(200);

    const revoked = await cli('api-key', 'revoke', '--account', account.accountId, '--id', account.keyId, '--json');
    expect(revoked.code).toBe(0);
    const started = Date.now();
    let elapsed = Number.POSITIVE_INFINITY; // stays so if 401 never comes
    for (;;) {
      const [a, b] = await Promise.all([details(url, account.key, visitorId), enrich(url, account.key, { email: workEmail })]);
      if (a.status === 401 && b.status === 401) {
        elapsed = Date.now() - started;
        break;
      }
      // Until then, only the cached answer or the new one: never anything else.
      expect([200, 401]).toEqual(expect.arrayContaining([a.status, b.status]));
      if (Date.now() - started > 8000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(elapsed).toBeLessThan(5000);
    for (let i = 0; i < 3; i++) {
      expectErrorBody(await details(url, account.key, visitorId), 401, 'unauthorized');
      expectErrorBody(await enrich(url, account.key, { email: workEmail }), 401, 'unauthorized');
    }
  });
});

describe('the details lookup (api.md §4.1)', () => {
  it.each([
    ['too short', 'abc123'],
    ['23 hex characters', 'a'.repeat(23)],
    ['25 hex characters', 'a'.repeat(25)],
    ['a non-hex letter', `${'a'.repeat(23)}g`],
    ['a space', `${'a'.repeat(11)}%20${'a'.repeat(12)}`],
    ['non-ASCII', encodeURIComponent(`${'a'.repeat(23)}é`)],
  ])('when visitorId is not 24 hex characters (%s), then 400 invalid_request', async (_what, id) => {
    expectErrorBody(await details(url, owner.key, id), 400, 'invalid_request');
  });

  it('when the visitor id is sent in upper or lower case, then both give the same 200 record', async () => {
    const upper = await details(url, owner.key, visitorId.toUpperCase());
    const lower = await details(url, owner.key, visitorId.toLowerCase());
    expect(upper.status).toBe(200);
    expect(lower.status).toBe(200);
    expect(upper.body).toEqual(lower.body);
    expect(upper.body.email).toBe(workEmail);
  });

  it("when the visitor is unknown, or another account's, then 404 not_found with the same body either way", async () => {
    const intruder = await accountWithKey();
    const unknownId = idWithLetters();

    const theirs = await details(url, intruder.key, visitorId);
    const unknown = await details(url, intruder.key, unknownId);
    const ownUnknown = await details(url, owner.key, unknownId);

    expectErrorBody(theirs, 404, 'not_found');
    expectErrorBody(unknown, 404, 'not_found');
    // Nothing tells "exists elsewhere" from "does not exist": only the echoed id differs.
    const withoutId = (res: HttpResult, id: string) => ({ ...res.body, message: (res.body.message as string).replace(id, '<id>') });
    expect(withoutId(theirs, visitorId)).toEqual(withoutId(unknown, unknownId));
    expect(unknown.body).toEqual(ownUnknown.body);
    expect(theirs.body.message).not.toContain(person.traits.full_name);
    // Control: the owner does see it.
    expect((await details(url, owner.key, visitorId)).status).toBe(200);
  });
});

describe('the enrichment lookup (api.md §4.2)', () => {
  it.each([
    ['empty', ''],
    ['an empty object', {}],
    ['an invalid email', { email: 'not-an-email' }],
    ['an empty email', { email: '   ' }],
    ['an email that is not a string', { email: 42 }],
    ['an unparseable phone', { phone: 'call me maybe' }],
    ['a phone too short for any region', { phone: '555-0134' }],
    ['a phone that is not a string', { phone: 4155550134 }],
    ['a valid email with an unparseable phone', { email: workEmail, phone: '12' }],
    ['an unknown field', { email: workEmail, name: 'Ada' }],
    ['a JSON array', [{ email: workEmail }]],
    ['JSON null', null],
    ['a JSON string', JSON.stringify(workEmail)],
    ['text that is not JSON', '{"email": '],
  ])('when the body is %s, then 400 invalid_request', async (_what, body) => {
    const res = await enrich(url, owner.key, typeof body === 'string' ? body : JSON.stringify(body));
    expectErrorBody(res, 400, 'invalid_request');
  });

  it('when neither the email nor the phone matches anybody, then 404 not_found', async () => {
    expectErrorBody(await enrich(url, owner.key, { email: `nobody.${randomSeed()}@nowhere.example` }), 404, 'not_found');
    // +44 20 7946 0xxx is reserved for fiction; no demo person has a UK number.
    expectErrorBody(await enrich(url, owner.key, { phone: `+44 20 7946 0${randomInt(100, 999)}` }), 404, 'not_found');
  });

  it('when the body is not declared JSON, then 415 unsupported_media_type', async () => {
    const body = JSON.stringify({ email: workEmail });
    expectErrorBody(await enrich(url, owner.key, body, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    expectErrorBody(await enrich(url, owner.key, `email=${workEmail}`, { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
  });

  it('when the body is over 32 KB, then 413 payload_too_large; at exactly 32 KB it is read (and judged on its content)', async () => {
    const padded = (bytes: number) => {
      const shell = JSON.stringify({ email: '' });
      return JSON.stringify({ email: 'x'.repeat(bytes - shell.length) });
    };
    expect(Buffer.byteLength(padded(32 * 1024))).toBe(32 * 1024);
    expectErrorBody(await enrich(url, owner.key, padded(32 * 1024 + 1)), 413, 'payload_too_large');
    expectErrorBody(await enrich(url, owner.key, padded(64 * 1024)), 413, 'payload_too_large');
    expectErrorBody(await enrich(url, owner.key, padded(32 * 1024)), 400, 'invalid_request');
  });

  it('when an account has used up its credit limit, then a matching lookup is 402 payment_required', async () => {
    const account = await accountWithKey(['enrichment:read']);
    await setCreditLimit(testDb('enrichment'), account.accountId, 1);
    expect((await enrich(url, account.key, { email: workEmail })).status).toBe(200);
    expectErrorBody(await enrich(url, account.key, { email: workEmail }), 402, 'payment_required');
    // Nobody to bill for: no match is still 404, not 402.
    expectErrorBody(await enrich(url, account.key, { email: `nobody.${randomSeed()}@nowhere.example` }), 404, 'not_found');
  });
});

describe('billing of failures', () => {
  it('when lookups fail with 404, 400, 401, 403 or 402, then usage and credits do not change', async () => {
    const account = await accountWithKey(['enrichment:read']);
    const detailsOnly = await createTestApiKey(account.accountId, ['visitors:read']);
    const revoked = await createTestApiKey(account.accountId, ['enrichment:read']);
    await revokeCredential(testDb('identity'), 'api_key', account.accountId, revoked.id);
    await setCreditLimit(testDb('enrichment'), account.accountId, 1);
    expect((await enrich(url, account.key, { email: workEmail })).status).toBe(200);
    const before = await billing(account.accountId);
    expect(before).toEqual({ identityMatches: 1, enrichedRecords: 1, creditLimit: 1 });

    const failures: [number, Promise<HttpResult>][] = [
      [404, enrich(url, account.key, { email: `nobody.${randomSeed()}@nowhere.example` })],
      [400, enrich(url, account.key, { email: 'not-an-email' })],
      [400, enrich(url, account.key, { email: workEmail, phone: 'no' })],
      [401, enrich(url, revoked.key, { email: workEmail })],
      [401, enrich(url, account.token, { email: workEmail })],
      [403, enrich(url, detailsOnly.key, { email: workEmail })],
      [402, enrich(url, account.key, { email: workEmail })],
      [402, enrich(url, account.key, { phone: otherPerson.traits.mobile_phone })],
      [413, enrich(url, account.key, JSON.stringify({ email: 'x'.repeat(40_000) }))],
      [415, enrich(url, account.key, 'x', { 'content-type': 'text/plain' })],
    ];
    const statuses = await Promise.all(failures.map(async ([, res]) => (await res).status));
    expect(statuses).toEqual(failures.map(([status]) => status));
    expect(await billing(account.accountId)).toEqual(before);
  });
});
