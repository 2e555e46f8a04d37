import fs from 'node:fs';
import path from 'node:path';
import { csvColumns, csvRangeParser, type CsvColumns } from './csv-range-line.js';
import { lineRowReader, type RowOutcome } from './ip-dataset-rows.js';

function collect(lines: string[], columns: string[]): RowOutcome[] {
  const read = lineRowReader(csvRangeParser(csvColumns(columns) as CsvColumns));
  return lines.flatMap((line) => read(line) ?? []);
}

describe("a text file's lines → rows", () => {
  it('numbers lines from 1 in the file, passes over blank lines and the header, and reports a NUL byte', () => {
    const out = collect(['start,end', '', '10.0.0.1,10.0.0.9', 'x\0y', '10.0.0.9,10.0.0.1'], ['start', 'end']);
    expect(out.map((o) => ('row' in o ? `${o.line}: row` : 'error' in o ? `${o.line}: ${o.error}` : `${o.line}: unusable`))).toEqual([
      '3: row',
      '4: contains a NUL byte',
      '5: start is after end',
    ]);
  });

  it('reads the hand-written fixture: four ranges, five bad lines with their numbers', () => {
    const file = path.join(__dirname, '..', '..', 'test', 'fixtures', 'ip-data', 'ranges.csv');
    const out = collect(fs.readFileSync(file, 'utf8').split('\n'), ['start', 'end', 'asn', 'name', 'domain', 'type']);
    expect(out.filter((o) => 'row' in o).map((o) => o.line)).toEqual([2, 3, 5, 11]);
    expect(out.flatMap((o) => ('error' in o ? [[o.line, o.error]] : []))).toEqual([
      [6, 'start is after end'],
      [7, 'contains a NUL byte'],
      [8, 'start: not an IPv4 or IPv6 address'],
      [9, 'start and end are of different families (IPv4 and IPv6)'],
      [10, 'asn: not an AS number (15169 or AS15169)'],
    ]);
  });
});
