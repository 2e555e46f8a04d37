// A first pass through the gateway to the enrichment service: a demo person is found by email.
import { generatePerson, importPersons } from '@glimpse/enrichment';
import { closeTestDb, createTestAccount, createTestApiKey, request, startLookupStack, testDb } from '../../../test/support/stack';

let stack: Awaited<ReturnType<typeof startLookupStack>>;
beforeAll(async () => {
  stack = await startLookupStack();
});
afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

it('when an imported person is enriched by email, then the gateway answers 200 with the record', async () => {
  const seed = Math.floor(Math.random() * 1e9);
  const person = generatePerson(0, seed);
  async function* one() {
    yield JSON.stringify(person);
  }
  await importPersons(one(), { db: testDb('enrichment'), defaultPhoneRegion: 'US' });
  const { accountId } = await createTestAccount();
  const { key } = await createTestApiKey(accountId, ['enrichment:read']);
  const res = await request(`${stack.gateway.url}/visitors/enrichment`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: person.traits.work_email }),
  });
  expect(res.status).toBe(200);
  expect(res.body.profile.id).toBe(person.profile.id);
});
