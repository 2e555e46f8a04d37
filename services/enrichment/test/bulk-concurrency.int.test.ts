// A bulk enrichment does not hold the service: while one call of 100 lookups with long
// fields runs through the real gateway, enrichment service and Postgres, small lookups sent beside
// it are answered, before the bulk's own answer. Half the items are refused while parsing (no
// query: only the service's yield between items lets others in), half reach the database.
import { closeTestDb, createTestAccount, createTestApiKey, startLookupStack } from '../../../test/support/stack';
import { enrich, uniqueTag } from './lookup-test-helpers';

let stack: Awaited<ReturnType<typeof startLookupStack>>;

beforeAll(async () => {
  // A bulk call spends 100 of the per-key rate; the small calls beside it must not be refused for that.
  stack = await startLookupStack({ LOOKUPS_RATE_LIMIT_PER_SECOND: '100000', LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: '100000' });
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

describe('a bulk enrichment beside other requests', () => {
  it('when a 100-item bulk with 2 KB fields runs, then small lookups sent meanwhile are answered before it', async () => {
    const { accountId } = await createTestAccount('bulk beside small');
    const { key } = await createTestApiKey(accountId, ['enrichment:read']);
    const tag = uniqueTag();
    const items = Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0
        ? // Refused while parsing: 2 KB of slashes where a profile URL belongs, and a long non-email.
          { pronet_url: 'a' + '/'.repeat(2045) + '!', email: `${'a'.repeat(200)}@${'b'.repeat(40)}` }
        : // Looked up: a well-formed profile URL of 2 KB that nobody has.
          { pronet_url: `https://pronet.example/in/${tag}-${i}-${'x'.repeat(1990)}` },
    );

    // The key's credential cached first, so the small lookups below wait on nothing but the service.
    expect((await enrich(stack.gateway.url, key, { email: `warm.${tag}@example.com` })).status).toBe(404);

    const started = performance.now();
    let bulkDoneAt = Infinity;
    const bulk = fetch(`${stack.gateway.url}/visitors/enrichment/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ items }),
    }).then(async (res) => {
      const body = await res.json();
      bulkDoneAt = performance.now();
      return { status: res.status, body };
    });

    // Small lookups one after another until the bulk has answered.
    const small: { status: number; doneAt: number }[] = [];
    while (bulkDoneAt === Infinity) {
      const res = await enrich(stack.gateway.url, key, { email: `nobody.${tag}.${small.length}@example.com` });
      small.push({ status: res.status, doneAt: performance.now() });
    }
    const answered = await bulk;

    expect(answered.status).toBe(200);
    expect(answered.body.results.map((r: { status: number }) => r.status)).toEqual(items.map((_, i) => (i % 2 === 0 ? 400 : 404)));
    expect(small.every((s) => s.status === 404)).toBe(true);
    const before = small.filter((s) => s.doneAt < bulkDoneAt);
    expect(before.length).toBeGreaterThanOrEqual(1);
    // The figures, for the record (the README's paragraph on bulk enrichment).
    console.log(
      `bulk of 100 (2 KB fields) answered in ${Math.round(bulkDoneAt - started)} ms; ${before.length} small lookups answered meanwhile, the first after ${Math.round(before[0]!.doneAt - started)} ms`,
    );
  });
});
