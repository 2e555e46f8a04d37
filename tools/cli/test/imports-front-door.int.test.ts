// `glimpse import persons | companies | visitors | ip-ranges | locations` through a real gateway's
// operator API, on a machine with no database configured (DATABASE_URL and ENRICHMENT_DATABASE_URL unset, or pointing nowhere):
// the file goes to the gateway, which streams it to the owning service, whose import writes it and
// reports its bad lines by number, as the direct import does. The CLI opens no database.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { generatePerson } from '@glimpse/enrichment';
import { cli, useCliStack } from './operator-stack';
import { scratchDir } from './support';
import { closeTestDb, createTestAccount, testDb, testSql } from '../../../test/support/stack';
import { setEnv } from '../../../test/config';

useCliStack();

const FIXTURES = path.join(__dirname, '..', '..', '..', 'services', 'visitors', 'test', 'fixtures', 'ip-data');
const tag = `t${randomBytes(4).toString('hex')}`;
const seed = randomInt(1, 2 ** 31 - 1);
const scratch = scratchDir('front-door');
const dir = scratch.dir;

let restoreEnv: (() => void) | undefined;
afterEach(() => restoreEnv?.());
afterAll(async () => {
  await testDb('enrichment').company.deleteMany({ where: { domain: { endsWith: `.${tag}.example` } } });
  for (const table of ['ip_ranges', 'ip_dataset_files']) await testSql().$executeRawUnsafe(`DELETE FROM visitors.${table} WHERE dataset LIKE $1`, `${tag}-%`);
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.ip_datasets WHERE name LIKE $1`, `${tag}-%`);
  scratch.remove();
  // The stack's own afterAll closed the test databases before this one opened them again: an idle
  // pool would keep jest from exiting for its idle timeout (30 s).
  await closeTestDb();
});

const NO_DATABASE = {
  unset: { DATABASE_URL: undefined, ENRICHMENT_DATABASE_URL: undefined },
  'pointing at nothing': { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', ENRICHMENT_DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' },
};

function ndjson(name: string, lines: unknown[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

describe.each(Object.entries(NO_DATABASE))('with the database URLs %s', (how, env) => {
  beforeEach(() => {
    restoreEnv = setEnv(env);
  });

  it('when persons are imported, then the good lines are stored, the bad ones reported by number, with progress on stderr', async () => {
    const [first, second] = [generatePerson(how === 'unset' ? 0 : 2, seed), generatePerson(how === 'unset' ? 1 : 3, seed)];
    const file = ndjson(`persons-${how}.ndjson`, [first, '{"profile": ', '', { profile: { id: 'not-an-object-id' } }, second]);

    const res = await cli('import', 'persons', file, '--json');

    expect(res.code).toBe(0);
    expect(res.json()).toEqual({
      read: 4,
      imported: 2,
      skipped: 2,
      errors: [
        { line: 2, message: expect.stringContaining('JSON') },
        { line: 4, message: expect.stringContaining('profile.id') },
      ],
    });
    expect(res.stderr).toMatch(/persons: 2 imported, 2 skipped \(\d+\/s\), 0\.0 of 0\.0 MiB sent/);
    const stored = await testDb('enrichment').person.findMany({ where: { id: { in: [first.profile.id!, second.profile.id!] } }, select: { id: true } });
    expect(stored).toHaveLength(2);
  });

  it("when an account's visitors are imported, then a visitor whose email no person has is reported by its line", async () => {
    const person = generatePerson(how === 'unset' ? 10 : 11, seed);
    expect((await cli('import', 'persons', ndjson(`one-${how}.ndjson`, [person]))).code).toBe(0);
    const { accountId } = await createTestAccount();
    const visitorId = randomBytes(12).toString('hex');
    const file = ndjson(`visitors-${how}.ndjson`, [
      { visitorId, email: person.traits.work_email, page_views: 3 },
      { visitorId: randomBytes(12).toString('hex'), email: `nobody.${tag}@example.com` },
    ]);

    const res = await cli('import', 'visitors', '--account', accountId, file, '--json');

    expect(res.code).toBe(0);
    expect(res.json()).toEqual({ read: 2, imported: 1, skipped: 1, errors: [{ line: 2, message: 'no imported person has this email' }] });
  });

  it('when companies are imported, then the good lines are stored, the bad ones reported by number, a later line of a domain winning', async () => {
    const domain = `acme-${how.length}.${tag}.example`;
    const file = ndjson(`companies-${how}.ndjson`, [
      { domain, name: 'Acme' },
      { name: 'No domain' },
      '{"domain": ',
      { domain: `www.${domain}`, name: 'Acme Corp' },
    ]);

    const res = await cli('import', 'companies', file, '--json');

    expect(res.code).toBe(0);
    expect(res.json()).toEqual({
      read: 4,
      imported: 2,
      skipped: 2,
      errors: [
        { line: 2, message: 'domain is required' },
        { line: 3, message: 'not valid JSON' },
      ],
    });
    expect(res.stderr).toMatch(/companies: 2 imported, 2 skipped \(\d+\/s\), 0\.0 of 0\.0 MiB sent/);
    expect(await testDb('enrichment').company.findUnique({ where: { domain } })).toMatchObject({ name: 'Acme Corp', source: 'import' });
  });

  it('when a City database is imported, then it is stored as the dataset; an ASN database is refused with the service’s message', async () => {
    const dataset = `${tag}-city-${how.length}`;
    const city = fs.readFileSync(path.join(FIXTURES, 'GeoIP2-City-Test.mmdb'));

    const res = await cli('import', 'locations', path.join(FIXTURES, 'GeoIP2-City-Test.mmdb'), '--dataset', dataset, '--json');

    expect(res.code).toBe(0);
    expect(res.json()).toEqual({ dataset, version: 1, databaseType: 'GeoIP2-City', bytes: city.length, chunks: 1 });
    expect(res.stderr).toMatch(/locations: 0\.0 of 0\.0 MiB sent/);
    const [row] = await testSql().$queryRawUnsafe<{ kind: string; size: number }[]>(
      'SELECT kind, size::int AS size FROM visitors.ip_datasets WHERE name = $1',
      dataset,
    );
    expect(row).toEqual({ kind: 'location', size: city.length });

    const asn = await cli('import', 'locations', path.join(FIXTURES, 'GeoLite2-ASN-Test.mmdb'), '--dataset', dataset);
    expect(asn.code).toBe(1);
    expect(asn.stderr).toContain('invalid_request: not a City database (GeoLite2-ASN)');
    const badName = await cli('import', 'locations', path.join(FIXTURES, 'GeoIP2-City-Test.mmdb'), '--dataset', 'bad name');
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain('invalid_request: dataset');
  });

  it('when IP ranges are imported from a CSV and from a MaxMind DB, then the dataset is replaced and the report is the direct import’s', async () => {
    const csv = await cli(
      'import',
      'ip-ranges',
      path.join(FIXTURES, 'ranges.csv'),
      '--dataset',
      `${tag}-csv-${how.length}`,
      '--columns',
      'start,end,asn,name,domain,type',
      '--precedence',
      '3',
      '--json',
    );
    expect(csv.code).toBe(0);
    expect(csv.json()).toMatchObject({ read: 9, imported: 4, skipped: 5, dataset: `${tag}-csv-${how.length}`, version: 1 });
    expect(csv.json().errors[1]).toEqual({ line: 7, message: 'contains a NUL byte' });
    expect(csv.stderr).toMatch(/ip ranges: 4 imported, 5 skipped/);

    const mmdb = await cli('import', 'ip-ranges', path.join(FIXTURES, 'GeoLite2-ASN-Test.mmdb'), '--dataset', `${tag}-asn-${how.length}`, '--json');
    expect(mmdb.code).toBe(0);
    expect(mmdb.json()).toMatchObject({ read: 412, imported: 186, skipped: 0, errors: [] });
    const [row] = await testSql().$queryRawUnsafe<{ format: string; precedence: number; size: number }[]>(
      'SELECT format, precedence, size::int AS size FROM visitors.ip_datasets WHERE name = $1',
      `${tag}-csv-${how.length}`,
    );
    expect(row).toEqual({ format: 'csv', precedence: 3, size: 4 });
  });
});

describe('refusals through the front door', () => {
  it("when the service refuses the import's options, then the CLI prints its {error}: {message} and exits 1, writing nothing", async () => {
    const bad = await cli('import', 'ip-ranges', path.join(FIXTURES, 'ranges.csv'), '--dataset', 'bad name');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid_request: dataset:');

    const notMmdb = await cli('import', 'ip-ranges', path.join(FIXTURES, 'ranges.csv'), '--dataset', `${tag}-x`, '--format', 'mmdb');
    expect(notMmdb.code).toBe(1);
    expect(notMmdb.stderr).toContain('invalid_request: not a MaxMind DB file');
  });
});
