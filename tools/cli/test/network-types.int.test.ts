// glimpse network-types against the real test database (as glimpse_visitors), through the CLI's
// entry point run(argv, io): an override set by AS number or organisation, listed, replaced and
// removed; bad input refused with the usage's words and nothing written.
import { randomInt } from 'node:crypto';
import { closeTestDb, testSql } from '../../../test/support/stack';
import { runCli } from './support';

const cli = (...argv: string[]) => runCli(argv);

// An AS number of the private range (RFC 6996) no one else's test uses.
const asn = String(4_200_000_000 + randomInt(90_000_000));
const org = `Test Org ${asn}`;

afterAll(async () => {
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.network_type_overrides WHERE value = ANY($1::text[])`, [asn, org.toLowerCase()]);
  await closeTestDb();
});

describe('glimpse network-types', () => {
  it('sets, lists, replaces and removes the type of an AS and of an organisation', async () => {
    expect((await cli('network-types', 'set', '--asn', `AS${asn}`, '--type', 'isp')).stdout).toBe(`asn ${asn} is now isp\n`);
    expect((await cli('network-types', 'set', '--org', `  ${org} `, '--type', 'business', '--json')).json()).toMatchObject({
      kind: 'org',
      value: org.toLowerCase(),
      type: 'business',
    });
    expect((await cli('network-types', 'set', '--asn', asn, '--type', 'hosting')).code).toBe(0);
    const listed = (await cli('network-types', '--json')).json() as { kind: string; value: string; type: string }[];
    expect(listed.filter((o) => o.value === asn || o.value === org.toLowerCase()).map((o) => [o.kind, o.type])).toEqual([
      ['asn', 'hosting'],
      ['org', 'business'],
    ]);
    expect((await cli('network-types', 'delete', '--asn', asn)).code).toBe(0);
    const again = await cli('network-types', 'delete', '--asn', asn);
    expect([again.code, again.stderr]).toEqual([1, `error: not_found: no override of asn ${asn}\n`]);
  });

  it('refuses an unknown type, two targets or none, and writes nothing', async () => {
    const bad = await cli('network-types', 'set', '--asn', asn, '--type', 'residential');
    expect([bad.code, bad.stderr]).toEqual([1, 'error: invalid_request: type must be one of business, education, government, isp, mobile, hosting, unknown\n']);
    expect((await cli('network-types', 'set', '--asn', asn, '--org', org, '--type', 'isp')).stderr).toContain('name one network');
    expect((await cli('network-types', 'set', '--type', 'isp')).stderr).toContain('name one network');
    expect((await cli('network-types', 'set', '--asn', 'AS-12', '--type', 'isp')).stderr).toContain('asn must be an AS number');
    const rows = await testSql().$queryRawUnsafe<unknown[]>(`SELECT 1 FROM visitors.network_type_overrides WHERE kind = 'asn' AND value = $1`, asn);
    expect(rows).toEqual([]);
    expect((await cli('network-types', 'set', '--help')).stdout).toContain('Only business, education and government networks name a company');
  });
});
