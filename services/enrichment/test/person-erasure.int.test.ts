// An account's erasure of a person reaches the enrichment schema (POST /internal/persons/erase, as
// the gateway's DELETE /account/persons/{email} calls it): the account's imported visitors matched
// to the person go (whichever of the person's emails they were imported under), the email leaves
// the page views of the account's other visitors (replaced by the stand-in it is given), and
// nothing of another account, nor the operator's dataset of persons, changes.
import { randomUUID } from 'node:crypto';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { createErasedEmail } from '@glimpse/messaging';
import { generatePerson, type RunningEnrichmentService } from '@glimpse/enrichment';
import { closeTestDb, request, startTestEnrichmentService, testDb, type HttpResult } from '../../../test/support/stack';
import { importPersonRecords, importVisitorRows, randomObjectId, randomSeed, uniqueTag } from './lookup-test-helpers';

const erasedEmail = createErasedEmail(`enrichment-erasure-test-secret-${randomUUID()}`);
let service: RunningEnrichmentService;

beforeAll(async () => {
  service = await startTestEnrichmentService();
});

afterAll(async () => {
  await service?.stop();
  await closeTestDb();
});

const internal = (accountId: string) => ({
  [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN,
  [INTERNAL_HEADERS.account]: accountId,
  'content-type': 'application/json',
});
const erase = (accountId: string, body: unknown): Promise<HttpResult> =>
  request(`${service.url}/internal/persons/erase`, { method: 'POST', headers: internal(accountId), body: JSON.stringify(body) });
const details = (accountId: string, visitorId: string): Promise<HttpResult> =>
  request(`${service.url}/internal/visitors/${visitorId}/details`, { headers: internal(accountId) });

/** A person with two emails of their own (work and personal), imported, and a bystander. */
async function twoPersons() {
  const tag = uniqueTag();
  const person = generatePerson(0, randomSeed());
  person.traits.work_email = `erase.me.${tag}@example.com`;
  person.traits.recommended_personal_email = `Erase.Me.Home.${tag}@example.net`;
  const bystander = generatePerson(1, randomSeed());
  bystander.traits.work_email = `stays.${tag}@example.com`;
  expect(await importPersonRecords([person, bystander])).toMatchObject({ imported: 2, skipped: 0 });
  return { person, email: person.traits.work_email, personal: `erase.me.home.${tag}@example.net`, bystanderEmail: bystander.traits.work_email };
}

const visitorsOf = async (accountId: string) =>
  (await testDb('enrichment').visitor.findMany({ where: { accountId }, select: { id: true, pageViews: true }, orderBy: { id: 'asc' } })).map((v) => ({
    id: v.id,
    pageViews: v.pageViews,
  }));

describe('enrichment: erasure of a person of an account', () => {
  it("when a person is erased, then the account's visitors matched to them are gone, the others' page views name the stand-in, and another account and the dataset are untouched", async () => {
    const { email, personal, bystanderEmail } = await twoPersons();
    const [accountId, otherAccount] = [randomUUID(), randomUUID()];
    const [byWork, byPersonal, bystanderVisitor, theirs] = [randomObjectId(), randomObjectId(), randomObjectId(), randomObjectId()];
    // The bystander's page views name the erased person's email (in another case), as a page they viewed.
    const mention = { pages: [{ path: `/team/${email.toUpperCase()}`, title: `Write to ${email}` }] };
    expect(
      await importVisitorRows(accountId, [
        { visitorId: byWork, email, pages: 3 },
        { visitorId: byPersonal, email: personal },
        { visitorId: bystanderVisitor, email: bystanderEmail, ...mention },
      ]),
    ).toMatchObject({ imported: 3 });
    expect(await importVisitorRows(otherAccount, [{ visitorId: theirs, email }])).toMatchObject({ imported: 1 });
    expect((await details(accountId, byWork)).status).toBe(200);
    const dataset = await testDb('enrichment').identity.count({ where: { value: { in: [email, personal] } } });
    expect(dataset).toBe(2);

    const replacement = erasedEmail(accountId, email);
    const res = await erase(accountId, { email: ` ${email.toUpperCase()} `, replacement });

    // Every email of the person (the dataset's person has more than these two), the erased one first: the gateway erases the visitors linked by each.
    expect(res).toMatchObject({ status: 200, body: { deletedVisitors: 2, hashedVisitors: 1, emails: expect.arrayContaining([email, personal]) } });
    expect(res.body.emails[0]).toBe(email);
    expect((await details(accountId, byWork)).status).toBe(404);
    expect((await details(accountId, byPersonal)).status).toBe(404);
    const left = await visitorsOf(accountId);
    expect(left).toEqual([{ id: bystanderVisitor, pageViews: { pages: [{ path: `/team/${replacement}`, title: `Write to ${replacement}` }] } }]);
    expect(JSON.stringify(left).toLowerCase()).not.toContain(email);
    // Another account's visitor of the same person, and the operator's dataset, stay.
    expect((await details(otherAccount, theirs)).status).toBe(200);
    expect(await testDb('enrichment').identity.count({ where: { value: { in: [email, personal] } } })).toBe(dataset);

    // Erasing again (a retried DELETE) finds nothing and changes nothing.
    expect(await erase(accountId, { email, replacement })).toMatchObject({ status: 200, body: { deletedVisitors: 0, hashedVisitors: 0 } });
    expect(await visitorsOf(accountId)).toEqual(left);
  });

  it('when the email or the stand-in is not valid, then it is 400 and nothing changes', async () => {
    const { email } = await twoPersons();
    const accountId = randomUUID();
    const visitorId = randomObjectId();
    expect(await importVisitorRows(accountId, [{ visitorId, email }])).toMatchObject({ imported: 1 });
    const replacement = erasedEmail(accountId, email);
    for (const [body, field] of [
      [{ replacement }, 'email'],
      [{ email: 'not-an-email', replacement }, 'email'],
      [{ email }, 'replacement'],
      [{ email, replacement: 'sha256:' + 'a'.repeat(64) }, 'replacement'],
      [{ email, replacement: email }, 'replacement'],
    ] as const) {
      expect(await erase(accountId, body)).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining(field) } });
    }
    expect((await details(accountId, visitorId)).status).toBe(200);
  });

  it('when the caller has no internal token, then it is refused', async () => {
    const res = await request(`${service.url}/internal/persons/erase`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });
});
