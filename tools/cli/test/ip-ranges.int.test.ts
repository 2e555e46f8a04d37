// glimpse import ip-ranges against the real test database (as glimpse_visitors), through the CLI's
// entry point run(argv, io): ranges loaded by COPY, bad lines reported with their numbers, progress on stderr.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '@glimpse/db/enrichment';
import { run } from '../src/main';
import type { CliService } from '../src/config';
import { closeTestDb, testDb } from '../../../test/support/stack';
import { serviceDatabaseUrl } from '../../../test/config';

const tag = randomBytes(4).toString('hex');
// The IPv6 group of the test's range, four hex digits with no leading zero (Postgres prints a group
// without them: 046f would come back as 46f, and 0000 as nothing).
const group = (parseInt(tag.slice(0, 4), 16) | 0x1000).toString(16);
const dbs = new Map<CliService, Db>();
const roleDb = (service: CliService) =>
  dbs.get(service) ?? (dbs.set(service, createDb({ databaseUrl: serviceDatabaseUrl(service), poolSize: 1 })), dbs.get(service)!);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-ip-ranges-'));

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, roleDb);
  return { code, stdout, stderr };
}

afterAll(async () => {
  await testDb('visitors').$executeRawUnsafe(`DELETE FROM visitors.ip_ranges WHERE company_domain LIKE $1`, `%.${tag}.example`);
  fs.rmSync(dir, { recursive: true, force: true });
  await Promise.all([...dbs.values()].map((db) => db.$disconnect()));
  await closeTestDb();
});

describe('glimpse import ip-ranges', () => {
  it('when a file mixes IPv4, IPv6 and bad lines, then the good ranges are loaded and the bad ones reported with their line numbers', async () => {
    const file = path.join(dir, 'ranges.ndjson');
    const b = 64 + (parseInt(tag.slice(0, 2), 16) % 60);
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ cidr: `100.${b}.7.0/24`, company: { name: 'Four', domain: `four.${tag}.example` } }),
        JSON.stringify({ cidr: `2001:db8:${group}::/48`, company: { name: 'Six', domain: `six.${tag}.example` } }),
        JSON.stringify({ cidr: '2001:db8::/129', company: { name: 'Too long a prefix' } }),
        JSON.stringify({ cidr: `100.${b}.8.0/24`, company: { domain: `noname.${tag}.example` } }),
      ].join('\n') + '\n',
    );
    const res = await cli('import', 'ip-ranges', file, '--json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ read: 4, imported: 2, skipped: 2, errors: [{ line: 3 }, { line: 4 }] });
    expect(res.stderr).toMatch(/ip ranges: 2 imported, 2 skipped/);
    const rows = await testDb('visitors').$queryRawUnsafe<{ range: string; company_name: string }[]>(
      `SELECT range::text AS range, company_name FROM visitors.ip_ranges WHERE company_domain LIKE $1 ORDER BY company_name`,
      `%.${tag}.example`,
    );
    expect(rows).toEqual([
      { range: `100.${b}.7.0/24`, company_name: 'Four' },
      { range: `2001:db8:${group}::/48`, company_name: 'Six' },
    ]);

    const human = await cli('import', 'ip-ranges', path.join(dir, 'missing.ndjson'));
    expect(human.code).not.toBe(0);
  });

  it('explains itself with --help', async () => {
    const res = await cli('import', 'ip-ranges', '--help');
    expect(res.code).toBe(0);
    expect(res.stdout + res.stderr).toMatch(/glimpse import ip-ranges FILE\.ndjson \[--replace\]/);
  });
});
