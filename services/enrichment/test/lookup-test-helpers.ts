// What the lookup integration tests share: ids and seeds no other run uses (persons are global
// and the test database outlives runs), imports through the use cases, the two lookups through
// the gateway, and the operator CLI through its entry point.
import { randomBytes, randomInt } from 'node:crypto';
import { importPersons, importVisitors, type ImportReport } from '@glimpse/enrichment';
import { run } from '../../../tools/cli/src/main';
import { request, testDb, type HttpResult } from '../../../test/support/stack';
import { testDatabaseUrl } from '../../../test/config';
import { expectConformsToInterface } from '../../../test/support/openapi';

export const randomSeed = (): number => randomInt(1, 2 ** 31 - 1);
export const randomObjectId = (): string => randomBytes(12).toString('hex');
export const uniqueTag = (): string => randomBytes(6).toString('hex');

async function* linesOf(values: unknown[]): AsyncIterable<string> {
  for (const value of values) yield typeof value === 'string' ? value : JSON.stringify(value);
}

export function importPersonRecords(records: unknown[]): Promise<ImportReport> {
  return importPersons(linesOf(records), { databaseUrl: testDatabaseUrl(), defaultPhoneRegion: 'US' });
}

export function importVisitorRows(accountId: string, rows: unknown[]): Promise<ImportReport> {
  return importVisitors(linesOf(rows), accountId, { db: testDb('enrichment'), defaultPhoneRegion: 'US' });
}

const bearer = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { authorization: `Bearer ${key}` });

/** Every answer of the lookups in these tests is also checked against the interface's OpenAPI description. */
export async function enrich(baseUrl: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await request(`${baseUrl}/visitors/enrichment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expectConformsToInterface('POST', '/visitors/enrichment', res);
  return res;
}

export async function details(baseUrl: string, key: string | undefined, visitorId: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  const path = `/visitors/${visitorId}/details`;
  const res = await request(`${baseUrl}${path}`, { headers: { ...bearer(key), ...headers } });
  expectConformsToInterface('GET', path, res);
  return res;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function cli(...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, testDb);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** An error body of api.md §2.6 with the given code: exactly `{error, message}`, both strings. */
export function expectErrorBody(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { error: code, message: expect.any(String) } });
  expect((res.body as { message: string }).message.length).toBeGreaterThan(0);
}
