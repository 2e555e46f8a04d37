// `glimpse ip-datasets` and `glimpse network-types` through a real gateway's operator API, on a
// machine with no database configured (DATABASE_URL unset, or pointing nowhere): the gateway relays
// them to the visitors service, which lists, deletes and sets as its role. The effect is read back
// from the database; the CLI opens none.
import path from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { cli, useCliStack } from './operator-stack';
import { closeTestDb, testSql } from '../../../test/support/stack';
import { setEnv } from '../../../test/config';

useCliStack();

const FIXTURES = path.join(__dirname, '..', '..', '..', 'services', 'visitors', 'test', 'fixtures', 'ip-data');
const tag = `t${randomBytes(4).toString('hex')}`;
// AS numbers of the private range (RFC 6996) no one else's test uses, one per case.
const asnBase = 4_200_000_000 + randomInt(90_000_000);

let restoreEnv: (() => void) | undefined;
afterEach(() => restoreEnv?.());
afterAll(async () => {
  for (const table of ['ip_ranges', 'ip_dataset_files']) await testSql().$executeRawUnsafe(`DELETE FROM visitors.${table} WHERE dataset LIKE $1`, `${tag}-%`);
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.ip_datasets WHERE name LIKE $1`, `${tag}-%`);
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.network_type_overrides WHERE value LIKE $1 OR value = ANY($2::text[])`, `${tag}%`, [
    String(asnBase),
    String(asnBase + 1),
  ]);
  await closeTestDb(); // opened again after the stack's afterAll closed it; idle, it would hold jest 30 s
});

const NO_DATABASE = {
  unset: { DATABASE_URL: undefined },
  'pointing at nothing': { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' },
};

const datasetRow = async (name: string) =>
  (await testSql().$queryRawUnsafe<{ name: string }[]>('SELECT name FROM visitors.ip_datasets WHERE name = $1', name))[0];
const rangeCount = async (name: string) =>
  (await testSql().$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM visitors.ip_ranges WHERE dataset = $1', name))[0]!.n;
const overrides = (values: string[]) =>
  testSql().$queryRawUnsafe<{ kind: string; value: string; type: string }[]>(
    'SELECT kind, value, type FROM visitors.network_type_overrides WHERE value = ANY($1::text[]) ORDER BY kind, value',
    values,
  );

describe.each(Object.entries(NO_DATABASE).map(([how, env], i) => [how, env, i] as const))('with DATABASE_URL %s', (how, env, i) => {
  beforeEach(() => {
    restoreEnv = setEnv(env);
  });

  it('when a dataset is listed and deleted, then it is listed with its size, and deleted with its ranges; deleting it again is not_found', async () => {
    const dataset = `${tag}-${i}`;
    const imported = await cli(
      'import',
      'ip-ranges',
      path.join(FIXTURES, 'ranges.csv'),
      '--dataset',
      dataset,
      '--columns',
      'start,end,asn,name,domain,type',
      '--precedence=-3',
    );
    expect(imported.code).toBe(0);

    const listed = await cli('ip-datasets', '--json');
    expect(listed.code).toBe(0);
    expect(listed.json()).toContainEqual(expect.objectContaining({ name: dataset, kind: 'ranges', format: 'csv', precedence: -3, version: 1, size: 4 }));
    const human = await cli('ip-datasets');
    expect(human.stdout).toMatch(/^name\s+kind\s+format\s+precedence\s+version\s+size\s+imported_at/);
    expect(human.stdout).toMatch(new RegExp(`${dataset}\\s+ranges\\s+csv\\s+-3\\s+1\\s+4\\s+\\d{4}-`));

    const deleted = await cli('ip-datasets', 'delete', dataset, '--json');
    expect([deleted.code, deleted.json()]).toEqual([0, { dataset, kind: 'ranges', deleted: 4 }]);
    expect(await datasetRow(dataset)).toBeUndefined();
    expect(await rangeCount(dataset)).toBe(0);
    const again = await cli('ip-datasets', 'delete', dataset);
    expect([again.code, again.stderr]).toEqual([1, `error: not_found: no IP dataset named ${dataset}\n`]);
  });

  it('when overrides are set, listed, replaced and removed, then the table holds exactly that', async () => {
    const asn = String(asnBase + i);
    const org = `${tag} Org ${how}`;
    expect((await cli('network-types', 'set', '--asn', `AS${asn}`, '--type', 'isp')).stdout).toBe(`asn ${asn} is now isp\n`);
    const byOrg = await cli('network-types', 'set', '--org', `  ${org} `, '--type', 'business', '--json');
    expect(byOrg.json()).toMatchObject({ kind: 'org', value: org.toLowerCase(), type: 'business' });
    expect((await cli('network-types', 'set', '--asn', asn, '--type', 'hosting')).code).toBe(0);

    const listed = (await cli('network-types', '--json')).json() as { kind: string; value: string; type: string }[];
    expect(listed.filter((o) => o.value === asn || o.value === org.toLowerCase()).map((o) => [o.kind, o.type])).toEqual([
      ['asn', 'hosting'],
      ['org', 'business'],
    ]);
    expect(await overrides([asn, org.toLowerCase()])).toEqual([
      { kind: 'asn', value: asn, type: 'hosting' },
      { kind: 'org', value: org.toLowerCase(), type: 'business' },
    ]);

    expect((await cli('network-types', 'delete', '--asn', asn)).stdout).toBe('override removed\n');
    expect((await cli('network-types', 'delete', '--org', org)).code).toBe(0);
    expect(await overrides([asn, org.toLowerCase()])).toEqual([]);
    const again = await cli('network-types', 'delete', '--asn', asn);
    expect([again.code, again.stderr]).toEqual([1, `error: not_found: no override of asn ${asn}\n`]);
  });
});

describe('refusals through the front door', () => {
  beforeEach(() => {
    restoreEnv = setEnv(NO_DATABASE.unset);
  });

  it('when the service refuses the input, then the CLI prints its {error}: {message} and exits 1, writing nothing', async () => {
    const asn = String(asnBase + 5);
    const bad = await cli('network-types', 'set', '--asn', asn, '--type', 'residential');
    expect([bad.code, bad.stderr]).toEqual([1, 'error: invalid_request: type must be one of business, education, government, isp, mobile, hosting, unknown\n']);
    expect((await cli('network-types', 'set', '--asn', 'AS-12', '--type', 'isp')).stderr).toBe(
      'error: invalid_request: asn must be an AS number such as 7922 or AS7922\n',
    );
    expect((await cli('network-types', 'set', '--asn', asn, '--org', 'x', '--type', 'isp')).stderr).toContain('name one network');
    expect((await cli('network-types', 'delete')).stderr).toContain('name one network');
    expect(await overrides([asn])).toEqual([]);

    const badName = await cli('ip-datasets', 'delete', 'bad name');
    expect([badName.code, badName.stderr]).toEqual([1, expect.stringContaining('error: invalid_request: dataset:')]);
  });
});
