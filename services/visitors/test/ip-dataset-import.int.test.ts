// importIpDataset against the real test database (as glimpse_visitors), beyond what the CLI's test
// covers: lines given as a readline or an array, a source that fails halfway (the dataset as it
// was), and two imports of one dataset at once (one after the other, no version lost or mixed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { randomBytes } from 'node:crypto';
import { importIpDataset, type IpDatasetImportReport } from '@glimpse/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { closeTestDb, testSql } from '../../../test/support/stack';

const tag = `t${randomBytes(4).toString('hex')}`;
const databaseUrl = serviceDatabaseUrl('visitors');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-ip-dataset-import-'));

const rows = (dataset: string) =>
  testSql().$queryRawUnsafe<{ first: string; name: string; version: number }[]>(
    `SELECT host(first) AS first, name, version::int AS version FROM visitors.ip_ranges r WHERE dataset = $1 ORDER BY r.first`,
    dataset,
  );
const csv = (n: number, name: string) => Array.from({ length: n }, (_, i) => `10.${i >> 8}.${i & 255}.1,10.${i >> 8}.${i & 255}.200,64500,${name}`);

afterAll(async () => {
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.ip_ranges WHERE dataset LIKE $1`, `${tag}-%`);
  await testSql().$executeRawUnsafe(`DELETE FROM visitors.ip_datasets WHERE name LIKE $1`, `${tag}-%`);
  fs.rmSync(dir, { recursive: true, force: true });
  await closeTestDb();
});

describe('importIpDataset', () => {
  it('when the lines come from a readline over a small file or from an array, then every line is read, with progress every batch', async () => {
    const file = path.join(dir, 'small.csv');
    fs.writeFileSync(file, 'start,end,asn,name\n192.0.2.1,192.0.2.9,64500,One\n');
    const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    expect(await importIpDataset(lines, { databaseUrl, dataset: `${tag}-readline`, format: 'csv' })).toMatchObject({ read: 1, imported: 1 });

    const progress: number[] = [];
    const report = await importIpDataset(csv(5, 'Array'), {
      databaseUrl,
      dataset: `${tag}-array`,
      format: 'csv',
      batchSize: 2,
      onProgress: (r) => progress.push(r.imported),
    });
    expect(report).toMatchObject({ read: 5, imported: 5, skipped: 0 });
    expect(progress).toEqual([2, 4]);
  });

  it('when the source fails halfway, then nothing of the new version is in and the dataset is as it was', async () => {
    const dataset = `${tag}-failing`;
    await importIpDataset(csv(3, 'Before'), { databaseUrl, dataset, format: 'csv' });
    async function* failing() {
      yield* csv(50_000, 'After');
      throw new Error('the disk went away');
    }
    await expect(importIpDataset(failing(), { databaseUrl, dataset, format: 'csv' })).rejects.toThrow('the disk went away');
    const stored = await rows(dataset);
    expect(stored).toHaveLength(3);
    expect(stored.every((r) => r.name === 'Before' && r.version === 1)).toBe(true);
  });

  it('when one dataset is imported twice at once, then the imports run one after the other and the last one is the dataset', async () => {
    const dataset = `${tag}-concurrent`;
    const reports: IpDatasetImportReport[] = await Promise.all(
      ['First', 'Second'].map((name) => importIpDataset(csv(20_000, name), { databaseUrl, dataset, format: 'csv' })),
    );
    expect(reports.map((r) => r.version).sort()).toEqual([1, 2]);
    const lastName = reports[0]!.version === 2 ? 'First' : 'Second';
    const stored = await rows(dataset);
    expect(stored).toHaveLength(20_000);
    expect(new Set(stored.map((r) => `${r.name} ${r.version}`))).toEqual(new Set([`${lastName} 2`]));
  });

  it('refuses a bad precedence, unknown CSV columns and a format that does not fit the source, before writing', async () => {
    const options = { databaseUrl, dataset: `${tag}-refused`, format: 'csv' as const };
    await expect(importIpDataset(['1.0.0.0,1.0.0.1'], { ...options, precedence: 1.5 })).rejects.toThrow('precedence: a whole number');
    await expect(importIpDataset(['1.0.0.0,1.0.0.1'], { ...options, columns: ['from', 'to'] })).rejects.toThrow(
      'columns: start and end, or cidr, are required',
    );
    await expect(importIpDataset(Buffer.from('x'), options)).rejects.toThrow('a csv file is imported from its path or its lines');
    await expect(importIpDataset(['x'], { ...options, format: 'mmdb' })).rejects.toThrow('a MaxMind DB file is imported from its path or its bytes');
    expect(await rows(options.dataset)).toEqual([]);
  });
});
