import type { Db } from '@glimpse/db/enrichment';
import { importVisitors, type ImportReport } from './import-data.js';

const VISITOR = (n: number) => n.toString(16).padStart(24, '0');

/** A stand-in for the database: knows some emails, records each visitor batch it is asked to write. */
function fakeDb({ known, failOnBatch }: { known: Set<string>; failOnBatch?: number }) {
  const writes: number[] = [];
  const db = {
    identity: {
      findMany: async ({ where }: { where: { value: { in: string[] } } }) =>
        where.value.in.filter((e) => known.has(e)).map((value) => ({ value, personId: 'p'.repeat(24) })),
    },
    $executeRaw: async (_sql: TemplateStringsArray, ...values: unknown[]) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      writes.push((values[1] as string[]).length);
      if (writes.length === failOnBatch) throw new Error('connection lost');
      return 0;
    },
  };
  return { db: db as unknown as Db, writes };
}

async function* linesOf(lines: string[]) {
  for (const line of lines) yield line;
}

describe('importVisitors', () => {
  it('when batches are written while later lines are parsed, then every batch is written in order and the errors come back in line order', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ visitorId: VISITOR(i), email: `v${i}@example.com` }));
    lines[1] = JSON.stringify({ visitorId: VISITOR(1), email: 'nobody@example.com' }); // rejected by the write of batch 1
    lines[4] = 'not json'; // rejected while parsing batch 2
    const known = new Set(Array.from({ length: 10 }, (_, i) => `v${i}@example.com`));
    const { db, writes } = fakeDb({ known });
    const progress: number[] = [];

    const report = await importVisitors(linesOf(lines), '00000000-0000-4000-8000-000000000000', {
      db,
      defaultPhoneRegion: 'US',
      batchSize: 3,
      onProgress: (r: ImportReport) => progress.push(r.imported),
    });

    expect(report).toEqual({
      read: 10,
      imported: 8,
      skipped: 2,
      errors: [
        { line: 2, message: 'no imported person has this email' },
        { line: 5, message: 'not valid JSON' },
      ],
    });
    expect(writes).toEqual([2, 3, 3]);
    expect(progress).toEqual([2, 5, 8]);
  });

  it('when a write fails, then the import fails with that error', async () => {
    const lines = Array.from({ length: 9 }, (_, i) => JSON.stringify({ visitorId: VISITOR(i), email: `v${i}@example.com` }));
    const { db } = fakeDb({ known: new Set(lines.map((_, i) => `v${i}@example.com`)), failOnBatch: 1 });

    await expect(importVisitors(linesOf(lines), '00000000-0000-4000-8000-000000000000', { db, defaultPhoneRegion: 'US', batchSize: 3 })).rejects.toThrow(
      'connection lost',
    );
  });
});
