// glimpse import companies, and the companies glimpse import persons derives from the persons'
// employers, against the real test database as glimpse_enrichment, through the CLI's entry point
// run(argv, io): bad lines reported with their numbers and skipped, progress on stderr, and a
// company a file imported never overwritten by what persons say of it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { generatePerson } from '@glimpse/enrichment';
import { closeTestDb, testDb } from '../../../test/support/stack';
import { runCli, scratchDir, serviceRoleDbs } from './support';

const tag = randomBytes(5).toString('hex');
const domain = (name: string) => `${name}.${tag}.example`;
const roleDbs = serviceRoleDbs();
const scratch = scratchDir('companies');
const dir = scratch.dir;
const cli = (...argv: string[]) => runCli(argv, roleDbs.open);

let files = 0;
function ndjson(lines: string[]): string {
  const file = path.join(dir, `companies-${(files += 1)}.ndjson`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const stored = (name: string) => testDb('enrichment').company.findUnique({ where: { domain: domain(name) } });

afterAll(async () => {
  await testDb('enrichment').company.deleteMany({ where: { domain: { endsWith: `.${tag}.example` } } });
  scratch.remove();
  await roleDbs.close();
  await closeTestDb();
});

describe('glimpse import companies', () => {
  it('when a file mixes good and bad lines, then the good companies are stored and each bad line is reported with its number', async () => {
    const acme = { domain: `WWW.${domain('acme').toUpperCase()}`, name: 'Acme', industry: 'Software', size: '51-200', employees: 120, founded: 2009 };
    const file = ndjson([
      JSON.stringify({ ...acme, location: { country: 'US', region: 'CA', city: 'Oakland' }, profile_url: 'https://pronet.example/company/acme' }), // 1
      '{"domain": ', // 2: not JSON
      JSON.stringify({ name: 'No domain' }), // 3
      JSON.stringify({ domain: 'localhost', name: 'Not a domain' }), // 4
      `{"domain": "${domain('nul')}", "name": "A\u0000B"}`, // 5: a raw NUL
      JSON.stringify({ domain: domain('escaped'), name: 'A\u0000B' }), // 6: an escaped NUL
      '', // 7: blank, not a record
      JSON.stringify({ domain: domain('globex'), name: 'Globex', employees: 'many' }), // 8
      JSON.stringify({ domain: domain('globex'), name: 'Globex' }), // 9
      JSON.stringify({ domain: domain('acme'), name: 'Acme Corp', size: '201-500' }), // 10: the later line of acme wins
    ]);

    const res = await cli('import', 'companies', file, '--json');

    expect(res.code).toBe(0);
    expect(res.json()).toEqual({
      read: 9,
      imported: 3,
      skipped: 6,
      errors: [
        { line: 2, message: 'not valid JSON' },
        { line: 3, message: 'domain is required' },
        { line: 4, message: expect.stringContaining('domain must be a domain name') },
        { line: 5, message: 'contains a NUL character' },
        { line: 6, message: 'contains a NUL character' },
        { line: 8, message: 'employees must be a whole number' },
      ],
    });
    expect(res.stderr).toMatch(/companies: 3 imported, 6 skipped/);
    expect(await stored('acme')).toMatchObject({ name: 'Acme Corp', size: '201-500', industry: null, employees: null, location: null, source: 'import' });
    expect(await stored('globex')).toMatchObject({ name: 'Globex', source: 'import' });
    expect(await stored('nul')).toBeNull();
  });

  it('when the file is missing or not named, then it says so', async () => {
    expect((await cli('import', 'companies')).code).toBe(2);
    expect((await cli('import', 'companies', path.join(dir, 'nope.ndjson'))).code).toBe(1);
  });
});

describe('glimpse import persons derives companies', () => {
  /** A synthetic person working at `name`'s company, of which they know only what is given. */
  function employee(i: number, name: string, company: Record<string, unknown>, employees: number | null = null) {
    const person = generatePerson(i, randomInt(1, 2 ** 31 - 1));
    return {
      ...person,
      company: { website: `https://www.${domain(name)}/about`, ...company },
      organization: { primary_domain: domain(name), estimated_num_employees: employees },
    };
  }

  it('when persons name their employers, then each company is stored once with what they know, and a company a file imported is left as it was', async () => {
    expect(
      (await cli('import', 'companies', ndjson([JSON.stringify({ domain: domain('kept'), name: 'Kept Inc', industry: 'Imported' })]), '--json')).code,
    ).toBe(0);
    const location = { name: 'Austin, Texas, United States', city: 'Austin', state: 'Texas', country: 'United States' };
    const persons = [
      employee(
        0,
        'derived',
        {
          name: 'Derived Co',
          industry: 'Software',
          size: '11-50',
          founded: 2011,
          location,
          pronet: { url: 'https://pronet.example/company/derived', id: '1' },
        },
        40,
      ),
      employee(1, 'derived', { name: null, size: '51-200' }),
      employee(2, 'kept', { name: 'Kept, as a person says' }),
    ];
    const file = path.join(dir, 'persons.ndjson');
    fs.writeFileSync(file, persons.map((p) => JSON.stringify(p)).join('\n') + '\n');

    const res = await cli('import', 'persons', file, '--json');

    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ imported: 3, skipped: 0 });
    expect(await stored('derived')).toMatchObject({
      name: 'Derived Co',
      industry: 'Software',
      size: '51-200',
      employees: 40,
      founded: 2011,
      location: { country: 'United States', region: 'Texas', city: 'Austin' },
      profileUrl: 'https://pronet.example/company/derived',
      source: 'persons',
    });
    expect(await stored('kept')).toMatchObject({ name: 'Kept Inc', industry: 'Imported', source: 'import' });

    // A company file names the derived company afterwards: the file is the source of record from then on.
    expect((await cli('import', 'companies', ndjson([JSON.stringify({ domain: domain('derived'), name: 'Derived Company' })]), '--json')).code).toBe(0);
    expect(await stored('derived')).toMatchObject({ name: 'Derived Company', size: null, source: 'import' });
  });
});
