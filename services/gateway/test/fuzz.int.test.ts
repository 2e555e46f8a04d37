// The fuzzer (scripts/chaos/fuzzer.js) over the real stack: bad escapes, odd methods, content
// types and encodings, deep JSON, NUL bytes, 1e309, duplicate keys… None may be answered 5xx,
// and no connection may close without an answer. npm run chaos runs the same at 20 000.
import { closeTestDb, createTestAccount, createTestApiKey, startManagementStack } from '../../../test/support/stack';

interface FuzzResult {
  sent: number;
  statuses: Record<string, number>;
  failures: { index: number; label: string; result: string | number; request: string }[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fuzz, printTable } = require('../../../scripts/chaos/fuzzer.js') as {
  fuzz(options: { url: string; count: number; seed: number; concurrency: number; eventToken: string; apiKey: string }): Promise<FuzzResult>;
  printTable(result: FuzzResult): string;
};

let stack: Awaited<ReturnType<typeof startManagementStack>>;

beforeAll(async () => {
  // Limits high enough that the fuzzer's requests reach the handlers rather than a 429.
  stack = await startManagementStack({ LOOKUPS_RATE_LIMIT_PER_SECOND: '100000', ACCOUNT_RATE_LIMIT_PER_SECOND: '100000' }, { visitors: true });
});

afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

describe('the gateway under a fuzzer', () => {
  it('when 2 000 seeded malformed requests hit every public path, then none is answered 5xx and every connection gets an answer', async () => {
    const { accountId, token } = await createTestAccount('fuzzed');
    const { key } = await createTestApiKey(accountId, ['visitors:read', 'enrichment:read', 'account:manage']);
    const result = await fuzz({ url: stack.gateway.url, count: 2000, seed: 20261126, concurrency: 8, eventToken: token, apiKey: key });
    expect(result.sent).toBe(2000);
    expect({ failures: result.failures, table: result.failures.length ? printTable(result) : '' }).toEqual({ failures: [], table: '' });
    expect(Object.keys(result.statuses).filter((s) => !/^[1-4]\d\d$/.test(s))).toEqual([]);
    // The credentials worked: requests got past authentication to the handlers, and were refused there too.
    for (const status of ['200', '400', '401', '404', '415']) expect(result.statuses[status] ?? 0).toBeGreaterThan(20);
  }, 180_000);
});
