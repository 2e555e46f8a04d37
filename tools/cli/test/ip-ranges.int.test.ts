// glimpse import ip-ranges / import locations / ip-datasets against the real test database (as
// glimpse_visitors), through the CLI's entry point run(argv, io): each format imported from real
// vendors' files (MaxMind's test databases) and a hand-written CSV, bad lines reported with their
// numbers, a dataset replaced whole without touching another, the City file stored and replaced.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { closeTestDb, testSql } from '../../../test/support/stack';
import { runCli, scratchDir, serviceRoleDbs } from './support';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'services', 'visitors', 'test', 'fixtures', 'ip-data');
const fixture = (name: string) => path.join(FIXTURES, name);
// Every dataset this file makes is named tag-…, and deleted after.
const tag = `t${randomBytes(4).toString('hex')}`;
const roleDbs = serviceRoleDbs();
const scratch = scratchDir('ip-ranges');
const dir = scratch.dir;
const cli = (...argv: string[]) => runCli(argv, roleDbs.open);

interface StoredRange {
  first: string;
  last: string;
  asn: number | null;
  name: string | null;
  domain: string | null;
  type: string | null;
  version: number;
}

const ranges = (dataset: string) =>
  testSql().$queryRawUnsafe<StoredRange[]>(
    `SELECT host(first) AS first, host(last) AS last, asn::int AS asn, name, domain, type, version::int AS version
     FROM visitors.ip_ranges r WHERE dataset = $1 ORDER BY family(r.first), r.first`,
    dataset,
  );
const datasetRow = async (name: string) =>
  (
    await testSql().$queryRawUnsafe<{ kind: string; format: string; precedence: number; version: number; size: number }[]>(
      `SELECT kind, format, precedence, version::int AS version, size::int AS size FROM visitors.ip_datasets WHERE name = $1`,
      name,
    )
  )[0];

function ndjson(name: string, lines: unknown[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

afterAll(async () => {
  for (const table of ['ip_ranges', 'ip_dataset_files']) await testSql().$executeRawUnsafe(`DELETE FROM visitors.${table} WHERE dataset LIKE $1`, `${tag}-%`);
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.ip_datasets WHERE name LIKE $1`, `${tag}-%`);
  scratch.remove();
  await roleDbs.close();
  await closeTestDb();
});

describe('glimpse import ip-ranges', () => {
  it('when a CSV of unaligned IPv4 and IPv6 ranges has a header and bad lines, then the good ranges are in and the bad ones reported with their numbers', async () => {
    const dataset = `${tag}-csv`;
    const res = await cli('import', 'ip-ranges', fixture('ranges.csv'), '--dataset', dataset, '--columns', 'start,end,asn,name,domain,type', '--json');
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ read: 9, imported: 4, skipped: 5, dataset, version: 1 });
    expect(res.json().errors.map((e: { line: number }) => e.line)).toEqual([6, 7, 8, 9, 10]);
    expect(res.json().errors[1]).toEqual({ line: 7, message: 'contains a NUL byte' });
    expect(res.stderr).toMatch(/ip ranges: 4 imported, 5 skipped/);
    expect(await ranges(dataset)).toEqual([
      { first: '198.51.100.7', last: '198.51.100.130', asn: 64500, name: 'Example Widgets, Inc.', domain: 'widgets.example', type: 'business', version: 1 },
      { first: '198.51.100.131', last: '198.51.100.131', asn: 64501, name: 'Single Address Ltd', domain: null, type: null, version: 1 },
      { first: '198.51.100.250', last: '198.51.100.254', asn: null, name: null, domain: null, type: 'education', version: 1 },
      { first: '2001:db8:5::3', last: '2001:db8:6::ffff', asn: 64502, name: 'Six Networks', domain: 'six.example', type: 'isp', version: 1 },
    ]);
    expect(await datasetRow(dataset)).toEqual({ kind: 'ranges', format: 'csv', precedence: 0, version: 1, size: 4 });

    const human = await cli('import', 'ip-ranges', fixture('ranges.csv'), '--dataset', dataset, '--columns', 'start,end,asn,name,domain,type');
    expect(human.stdout).toContain(`dataset ${dataset}, version 2\nimported 4, skipped 5 of 9 lines\n  line 6: start is after end`);
  });

  it("when MaxMind's GeoLite2-ASN and GeoIP2-Enterprise test databases are imported, then each network's asn, organisation and type are in (source-data's answers)", async () => {
    const asn = await cli('import', 'ip-ranges', fixture('GeoLite2-ASN-Test.mmdb'), '--dataset', `${tag}-asn`, '--precedence', '10', '--json');
    expect(asn.code).toBe(0);
    expect(asn.json()).toMatchObject({ read: 412, imported: 186, skipped: 0, errors: [] });
    const asnRows = await ranges(`${tag}-asn`);
    expect(asnRows).toHaveLength(186);
    expect(asnRows[0]).toEqual({ first: '1.0.0.0', last: '1.0.0.255', asn: 15169, name: 'Google Inc.', domain: null, type: null, version: 1 });
    expect(asnRows.find((r) => r.first === '2600:7000::')).toMatchObject({
      last: '2600:70ff:ffff:ffff:ffff:ffff:ffff:ffff',
      asn: 6939,
      name: 'Hurricane Electric, Inc.',
    });
    expect(await datasetRow(`${tag}-asn`)).toEqual({ kind: 'ranges', format: 'mmdb', precedence: 10, version: 1, size: 186 });

    const enterprise = await cli('import', 'ip-ranges', fixture('GeoIP2-Enterprise-Test.mmdb'), '--dataset', `${tag}-enterprise`, '--json');
    expect(enterprise.json()).toMatchObject({ read: 32, imported: 25, skipped: 6, errors: [] });
    const byFirst = new Map((await ranges(`${tag}-enterprise`)).map((r) => [r.first, r]));
    expect(byFirst.get('214.78.120.0')).toMatchObject({ last: '214.78.123.255', asn: 14593, name: 'Starlink', domain: 'starlinkisp.net', type: 'isp' });
    expect(byFirst.get('2001:480:10::')).toMatchObject({ last: '2001:480:10:7fff:ffff:ffff:ffff:ffff', asn: 22, name: 'DNIC', type: 'government' });
    expect(byFirst.get('149.101.100.0')).toMatchObject({ name: 'Verizon Wireless', type: 'mobile' });
  });

  it('when a company list (NDJSON) is imported, then its ranges are typed business unless a line says, and a bad line is reported', async () => {
    const dataset = `${tag}-companies`;
    const file = ndjson('companies.ndjson', [
      { cidr: '192.0.2.0/25', company: { name: 'Acme', domain: 'acme.example' } },
      { cidr: '2001:db8:a::/48', company: { name: 'Uni' }, type: 'education', asn: 'AS64510' },
      '{"cidr": "300.1.1.0/24", "company": {"name": "Bad"}}',
    ]);
    const res = await cli('import', 'ip-ranges', file, '--dataset', dataset, '--json');
    expect(res.json()).toMatchObject({ read: 3, imported: 2, skipped: 1, errors: [{ line: 3, message: 'cidr: not an IPv4 or IPv6 CIDR' }] });
    expect(await ranges(dataset)).toEqual([
      { first: '192.0.2.0', last: '192.0.2.127', asn: null, name: 'Acme', domain: 'acme.example', type: 'business', version: 1 },
      { first: '2001:db8:a::', last: '2001:db8:a:ffff:ffff:ffff:ffff:ffff', asn: 64510, name: 'Uni', domain: null, type: 'education', version: 1 },
    ]);
  });

  it('when a dataset is imported again, then its new version replaces it whole (precedence kept) and another dataset is untouched; a failed import changes nothing', async () => {
    const [replaced, other] = [`${tag}-replaced`, `${tag}-other`];
    await cli('import', 'ip-ranges', ndjson('one.ndjson', [{ cidr: '192.0.2.0/24', company: { name: 'One' } }]), '--dataset', replaced, '--precedence', '5');
    await cli('import', 'ip-ranges', ndjson('other.ndjson', [{ cidr: '198.51.100.0/24', company: { name: 'Other' } }]), '--dataset', other);
    const otherBefore = await ranges(other);

    const again = await cli('import', 'ip-ranges', fixture('GeoIP2-Connection-Type-Test.mmdb'), '--dataset', replaced, '--json');
    expect(again.json()).toMatchObject({ imported: 19, version: 2 });
    const rows = await ranges(replaced);
    expect(rows).toHaveLength(19);
    expect(rows.every((r) => r.version === 2)).toBe(true);
    expect(rows.find((r) => r.first === '1.0.1.0')).toMatchObject({ type: 'mobile' });
    expect(await datasetRow(replaced)).toEqual({ kind: 'ranges', format: 'mmdb', precedence: 5, version: 2, size: 19 });
    expect(await ranges(other)).toEqual(otherBefore);
    expect(await datasetRow(other)).toMatchObject({ version: 1, size: 1 });

    // Not a MaxMind DB: refused before a row is written, the dataset as it was.
    const refused = await cli('import', 'ip-ranges', fixture('ranges.csv'), '--dataset', replaced, '--format', 'mmdb');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/invalid_request: not a MaxMind DB file/);
    expect(await datasetRow(replaced)).toMatchObject({ version: 2, size: 19 });
  });

  it('refuses a missing dataset, an unknown format, a missing file, a bad dataset name, and explains itself with --help', async () => {
    expect((await cli('import', 'ip-ranges', fixture('ranges.csv'))).stderr).toContain('--dataset is required');
    expect((await cli('import', 'ip-ranges', fixture('README.md'), '--dataset', `${tag}-x`)).code).toBe(2);
    expect((await cli('import', 'ip-ranges', path.join(dir, 'missing.csv'), '--dataset', `${tag}-x`)).stderr).toContain('not_found');
    expect((await cli('import', 'ip-ranges', fixture('ranges.csv'), '--dataset', 'bad name')).stderr).toContain('invalid_request: dataset:');
    const help = await cli('import', 'ip-ranges', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'Usage: glimpse import ip-ranges FILE --dataset NAME [--format mmdb|csv|ndjson] [--precedence N] [--columns start,end,asn,name]',
    );
    expect((await cli('import', 'locations', '--help')).stdout).toContain('Usage: glimpse import locations FILE.mmdb [--dataset NAME]');
    expect((await cli('ip-datasets', '--help')).stdout).toContain('Usage: glimpse ip-datasets [--json]');
  });
});

describe('glimpse import locations and ip-datasets', () => {
  const storedFile = async (dataset: string) => {
    const chunks = await testSql().$queryRawUnsafe<{ seq: number; version: number; bytes: Uint8Array }[]>(
      `SELECT seq, version::int AS version, bytes FROM visitors.ip_dataset_files WHERE dataset = $1 ORDER BY version, seq`,
      dataset,
    );
    return { versions: [...new Set(chunks.map((c) => c.version))], bytes: Buffer.concat(chunks.map((c) => Buffer.from(c.bytes))) };
  };

  it('when a City database is imported, then its bytes are stored as the dataset; imported again, the new version replaces the old', async () => {
    const dataset = `${tag}-location`;
    const city = fs.readFileSync(fixture('GeoIP2-City-Test.mmdb'));
    const first = await cli('import', 'locations', fixture('GeoIP2-City-Test.mmdb'), '--dataset', dataset, '--json');
    expect(first.code).toBe(0);
    expect(first.json()).toEqual({ dataset, version: 1, databaseType: 'GeoIP2-City', bytes: city.length, chunks: 1 });
    expect(await storedFile(dataset)).toEqual({ versions: [1], bytes: city });
    expect(await datasetRow(dataset)).toEqual({ kind: 'location', format: 'mmdb', precedence: 0, version: 1, size: city.length });

    const second = await cli('import', 'locations', fixture('GeoIP2-City-Test.mmdb'), '--dataset', dataset);
    expect(second.stdout).toContain(`dataset ${dataset}, version 2: GeoIP2-City, ${city.length} bytes in 1 chunk(s)`);
    expect(await storedFile(dataset)).toEqual({ versions: [2], bytes: city });

    // An ASN database is no City database; a ranges import cannot take a location dataset's name.
    const asn = await cli('import', 'locations', fixture('GeoLite2-ASN-Test.mmdb'), '--dataset', dataset);
    expect(asn.code).toBe(1);
    expect(asn.stderr).toContain('not a City database (GeoLite2-ASN)');
    const clash = await cli('import', 'ip-ranges', fixture('GeoLite2-ASN-Test.mmdb'), '--dataset', dataset);
    expect(clash.stderr).toContain(`dataset ${dataset} holds location, not ranges`);
    expect(await datasetRow(dataset)).toMatchObject({ version: 2 });
  });

  it('lists the datasets, and deletes one with its ranges', async () => {
    const dataset = `${tag}-listed`;
    await cli('import', 'ip-ranges', fixture('GeoLite2-ASN-Test.mmdb'), '--dataset', dataset, '--precedence=-3');
    const listed = await cli('ip-datasets', '--json');
    expect(listed.code).toBe(0);
    expect(listed.json()).toContainEqual(expect.objectContaining({ name: dataset, kind: 'ranges', format: 'mmdb', precedence: -3, version: 1, size: 186 }));
    const human = await cli('ip-datasets');
    expect(human.stdout).toMatch(/^name\s+kind\s+format\s+precedence\s+version\s+size\s+imported_at/);
    expect(human.stdout).toMatch(new RegExp(`${dataset}\\s+ranges\\s+mmdb\\s+-3\\s+1\\s+186\\s+\\d{4}-`));

    const deleted = await cli('ip-datasets', 'delete', dataset, '--json');
    expect(deleted.json()).toEqual({ dataset, kind: 'ranges', deleted: 186 });
    expect(await ranges(dataset)).toEqual([]);
    expect(await datasetRow(dataset)).toBeUndefined();
    const again = await cli('ip-datasets', 'delete', dataset);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not_found');
  });
});
