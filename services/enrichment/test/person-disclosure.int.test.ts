// A person's fields disclosed to an account (POST /internal/persons/details, as the gateway's details
// lookup and the webhooks service ask for them): billed as an enrichment, once per person per
// account per month, however many ask at once; not disclosed without credits, unless already paid
// for this month; nothing billed for nobody or for a request that does not say it is billable.
import { randomUUID } from 'node:crypto';
import { devInternalToken } from '@glimpse/config';
import {
  DEV_BILLING_KEY,
  billingPeriodOf,
  createPersonKey,
  generatePerson,
  normalizeRecord,
  setCreditLimit,
  toVisitorDetails,
  usageTotals,
  type RunningEnrichmentService,
} from '@glimpse/enrichment';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { closeTestDb, request, startTestEnrichmentService, testDb, type HttpResult } from '../../../test/support/stack';
import { importPersonRecords, randomSeed } from './lookup-test-helpers';

let enrichment: RunningEnrichmentService;
beforeAll(async () => {
  enrichment = await startTestEnrichmentService();
});
afterAll(async () => {
  await enrichment?.stop();
  await closeTestDb();
});

const disclose = (accountId: string, body: unknown): Promise<HttpResult> =>
  request(`${enrichment.url}/internal/persons/details`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.token]: devInternalToken('webhooks'), [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function person(): Promise<{ email: string; details: unknown }> {
  const record = generatePerson(0, randomSeed());
  await importPersonRecords([record]);
  return { email: record.traits.work_email as string, details: toVisitorDetails(normalizeRecord(record)) };
}

const usage = (accountId: string) => usageTotals(testDb('enrichment'), accountId);
const billedRows = (accountId: string) => testDb('enrichment').billedPerson.findMany({ where: { accountId } });

it('when ten disclosures of one person arrive at once, then each shows the fields and exactly one bills (one ledger row, one billed person, keyed without the email)', async () => {
  const accountId = randomUUID();
  const ada = await person();
  const answers = await Promise.all(Array.from({ length: 10 }, () => disclose(accountId, { email: ada.email.toUpperCase(), billable: true })));
  for (const a of answers)
    expect({ status: a.status, disclosed: a.body.disclosed, details: a.body.details }).toEqual({ status: 200, disclosed: true, details: ada.details });
  expect(answers.filter((a) => a.body.billed === true)).toHaveLength(1);
  expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
  const rows = await billedRows(accountId);
  expect(rows.map((r) => ({ period: r.period.toISOString().slice(0, 10), personKey: r.personKey }))).toEqual([
    { period: billingPeriodOf(new Date().toISOString().slice(0, 10)), personKey: createPersonKey(DEV_BILLING_KEY)(accountId, ada.email) },
  ]);
  expect(rows[0]!.personKey).not.toContain(ada.email.split('@')[0]);

  // Another account is billed for the same person on its own.
  const other = randomUUID();
  expect((await disclose(other, { email: ada.email, billable: true })).body.billed).toBe(true);
  expect(await usage(other)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
  expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
});

it('when the account reaches its credit limit, then a new person is not disclosed (no fields) while a person paid for this month still is', async () => {
  const accountId = randomUUID();
  await setCreditLimit(testDb('enrichment'), accountId, 1);
  const [ada, bob] = [await person(), await person()];
  const first = await disclose(accountId, { email: ada.email, billable: true });
  expect(first.body).toMatchObject({ disclosed: true, billed: true });
  expect(first.headers.get('credits-remaining')).toBe('0');

  const refused = await disclose(accountId, { email: bob.email, billable: true });
  expect({ status: refused.status, body: refused.body }).toEqual({ status: 200, body: { disclosed: false, reason: 'credits_exhausted' } });
  expect(refused.headers.get('credits-remaining')).toBe('0');
  const again = await disclose(accountId, { email: ada.email, billable: true });
  expect(again.body).toEqual({ disclosed: true, billed: false, details: ada.details });
  expect(await usage(accountId)).toEqual({ identityMatches: 1, enrichedRecords: 1 });
  expect(await billedRows(accountId)).toHaveLength(1);
});

it.each([
  ['billable left out', (email: string) => ({ email }), 400],
  ['billable false', (email: string) => ({ email, billable: false }), 400],
  ['an email that is not one', () => ({ email: 'not-an-email', billable: true }), 400],
  ['nobody with the email', () => ({ email: `nobody-${randomUUID()}@example.com`, billable: true }), 404],
])('when the request has %s, then nothing is disclosed or billed', async (_what, body, status) => {
  const accountId = randomUUID();
  const ada = await person();
  const res = await disclose(accountId, body(ada.email));
  expect(res.status).toBe(status);
  expect(res.body.details).toBeUndefined();
  expect(await usage(accountId)).toEqual({ identityMatches: 0, enrichedRecords: 0 });
  expect(await billedRows(accountId)).toEqual([]);
});
