// Billing of the enrichment lookup (api.md §4.2, §8): one identity match plus one enriched record
// per matched call, counted exactly under concurrency, and a credit limit that lets exactly
// that many calls through, read back through the operator CLI and the repository alike.
import { generatePerson, usageTotals } from '@glimpse/enrichment';
import { closeTestDb, createTestAccount, createTestApiKey, startLookupStack, testDb, type HttpResult } from '../../../test/support/stack';
import { cli, enrich, importPersonRecords, randomSeed } from './lookup-test-helpers';

const seed = randomSeed();
const people = [0, 1, 2].map((i) => generatePerson(i, seed));
const [ada, bob, cy] = people as [ReturnType<typeof generatePerson>, ReturnType<typeof generatePerson>, ReturnType<typeof generatePerson>];

let stack: Awaited<ReturnType<typeof startLookupStack>>;
let url: string;

beforeAll(async () => {
  stack = await startLookupStack();
  url = stack.gateway.url;
  expect(await importPersonRecords(people)).toMatchObject({ imported: people.length, skipped: 0 });
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

async function newAccountKey(): Promise<{ accountId: string; key: string }> {
  const { accountId } = await createTestAccount();
  const { key } = await createTestApiKey(accountId, ['enrichment:read']);
  return { accountId, key };
}

/** Usage as the operator reads it (`glimpse usage --json`), checked against the repository. */
async function usage(accountId: string): Promise<{ identityMatches: number; enrichedRecords: number }> {
  const result = await cli('usage', '--account', accountId, '--json');
  expect(result.code).toBe(0);
  const { period, ...totals } = result.json() as { identityMatches: number; enrichedRecords: number; period: unknown };
  expect(totals).toEqual(await usageTotals(testDb('enrichment'), accountId));
  expect(period).toEqual({ start: `${new Date().toISOString().slice(0, 7)}-01`, personsBilled: expect.any(Number) });
  return totals;
}

const statusCounts = (results: HttpResult[]) => results.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

it('when lookups match, then each adds exactly one identity match and one enriched record; one matching both ways is still one', async () => {
  const { accountId, key } = await newAccountKey();
  expect(await usage(accountId)).toEqual({ identityMatches: 0, enrichedRecords: 0 });

  expect((await enrich(url, key, { email: ada.traits.work_email })).status).toBe(200);
  expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });

  expect((await enrich(url, key, { phone: bob.traits.mobile_phone })).status).toBe(200);
  expect(await usage(accountId)).toEqual({ identityMatches: 2, enrichedRecords: 2 });

  // Email and phone of two different people: one answer (the email's), one charge.
  expect((await enrich(url, key, { email: ada.traits.work_email, phone: bob.traits.mobile_phone })).status).toBe(200);
  expect(await usage(accountId)).toEqual({ identityMatches: 3, enrichedRecords: 3 });

  expect((await enrich(url, key, { email: `nobody.${randomSeed()}@nowhere.example` })).status).toBe(404);
  expect(await usage(accountId)).toEqual({ identityMatches: 3, enrichedRecords: 3 });
});

it('when a credit limit of 7 is set with the CLI and 20 matching lookups race, then exactly 7 are 200 and 13 are 402, and usage is 7/7', async () => {
  const { accountId, key } = await newAccountKey();
  const set = await cli('account', 'set-credits', '--account', accountId, '--credits', '7', '--json');
  expect(set.code).toBe(0);
  expect(set.json()).toEqual({ id: accountId, credits: 7 });

  const results = await Promise.all(
    people
      .flatMap((p) => [p, p, p, p, p, p, p])
      .slice(0, 20)
      .map((p) => enrich(url, key, { email: p.traits.work_email })),
  );

  expect(statusCounts(results)).toEqual({ 200: 7, 402: 13 });
  for (const r of results.filter((r) => r.status === 402)) expect(r.body).toEqual({ error: 'payment_required', message: expect.any(String) });
  expect(await usage(accountId)).toEqual({ identityMatches: 7, enrichedRecords: 7 });
  const after = await enrich(url, key, { email: cy.traits.work_email });
  expect(after.status).toBe(402);
  expect(await usage(accountId)).toEqual({ identityMatches: 7, enrichedRecords: 7 });

  // Raising the limit, then removing it, lets lookups through again, each billed.
  expect((await cli('account', 'set-credits', '--account', accountId, '--credits', '8')).code).toBe(0);
  expect((await enrich(url, key, { email: cy.traits.work_email })).status).toBe(200);
  expect((await enrich(url, key, { email: cy.traits.work_email })).status).toBe(402);
  expect((await cli('account', 'set-credits', '--account', accountId, '--credits', 'none')).code).toBe(0);
  expect((await enrich(url, key, { email: cy.traits.work_email })).status).toBe(200);
  expect(await usage(accountId)).toEqual({ identityMatches: 9, enrichedRecords: 9 });
});

it('when a credit limit is 0, then the first matching lookup is already 402 and nothing is billed', async () => {
  const { accountId, key } = await newAccountKey();
  expect((await cli('account', 'set-credits', '--account', accountId, '--credits', '0')).code).toBe(0);
  expect((await enrich(url, key, { email: ada.traits.work_email })).status).toBe(402);
  expect(await usage(accountId)).toEqual({ identityMatches: 0, enrichedRecords: 0 });
});

it('when 50 matching lookups of one account race with 10 of another, without a limit, then usage grows by exactly 50/50 and 10/10', async () => {
  const first = await newAccountKey();
  const second = await newAccountKey();
  // Some usage already there, so the race must add to it, not overwrite it.
  expect((await enrich(url, first.key, { email: ada.traits.work_email })).status).toBe(200);
  const before = await usage(first.accountId);

  const calls = [
    ...Array.from({ length: 50 }, (_, i) => enrich(url, first.key, { email: people[i % people.length]!.traits.work_email })),
    ...Array.from({ length: 10 }, (_, i) => enrich(url, second.key, { phone: people[i % people.length]!.traits.mobile_phone })),
  ];
  const results = await Promise.all(calls);

  expect(statusCounts(results)).toEqual({ 200: 60 });
  expect(await usage(first.accountId)).toEqual({ identityMatches: before.identityMatches + 50, enrichedRecords: before.enrichedRecords + 50 });
  expect(await usage(second.accountId)).toEqual({ identityMatches: 10, enrichedRecords: 10 });
});

it('when usage is asked for an account that does not exist, then the CLI says not_found rather than showing zeros', async () => {
  for (const account of ['00000000-0000-4000-8000-000000000000', 'acme']) {
    const result = await cli('usage', '--account', account, '--json');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`not_found: account ${account} does not exist`);
    expect(result.stdout).toBe('');
  }
});
