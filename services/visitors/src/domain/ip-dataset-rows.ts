// The rows of an IP dataset file, whatever its format, as one stream of outcomes the importer counts
// and copies: a row, a line (or network) in error, or a network with nothing usable.
import { formatAddress } from './ip-bounds.js';
import type { Invalid, IpRangeRow, RowFields } from './ip-range-row.js';
import type { MmdbFile } from './mmdb-networks.js';

export type RowOutcome =
  /** `read`: the lines or networks the row stands for (adjacent networks merge into one row). */
  | { line: number; row: IpRangeRow; read: number }
  | { line: number; error: string }
  /** A network whose record says nothing usable (no asn, name or type): counted, not an error. */
  | { line: number; unusable: true };

/** A parser of one line: a row, an error, or null for a line that is no data (a header). */
export type LineParser = (line: string) => IpRangeRow | { error: string } | null;

/**
 * Reads a text file's lines in order, numbered from 1: the outcome of a line of data, or null for a
 * blank line or one that is no data (a header).
 */
export function lineRowReader(parse: LineParser): (text: string) => RowOutcome | null {
  let line = 0;
  return (text) => {
    line += 1;
    if (text.trim() === '') return null;
    // Postgres' text cannot hold one: caught here, the line is reported instead of the COPY failing.
    if (text.includes('\0')) return { line, error: 'contains a NUL byte' };
    const parsed = parse(text);
    if (parsed === null) return null;
    return 'error' in parsed ? { line, error: parsed.error } : { line, row: parsed, read: 1 };
  };
}

const sameFields = (a: RowFields, b: RowFields) => a.asn === b.asn && a.name === b.name && a.domain === b.domain && a.type === b.type;

interface PendingRow {
  line: number;
  family: 4 | 6;
  first: bigint;
  last: bigint;
  fields: RowFields;
  read: number;
}

const rowOf = (p: PendingRow): RowOutcome => ({
  line: p.line,
  row: { family: p.family, first: formatAddress(p.family, p.first), last: formatAddress(p.family, p.last), ...p.fields },
  read: p.read,
});

/**
 * The outcomes of a MaxMind DB file's networks in address order, numbered from 1 (the `line` of an
 * error); adjacent networks of the same family with the same fields are one row. `fieldsOf` maps a
 * decoded record (null: nothing usable); it runs once per distinct record.
 */
export function* mmdbRows(file: MmdbFile, fieldsOf: (record: unknown) => RowFields | Invalid | null): Generator<RowOutcome> {
  const byPointer = new Map<number, RowFields | Invalid | null>();
  let pending: PendingRow | null = null;
  let line = 0;
  for (const network of file.networks()) {
    line += 1;
    let fields = byPointer.get(network.pointer);
    if (fields === undefined) {
      fields = fieldsOf(file.record(network.pointer));
      byPointer.set(network.pointer, fields);
    }
    if (fields === null || 'error' in fields) {
      yield fields === null ? { line, unusable: true } : { line, error: fields.error };
      continue;
    }
    const { family, first, last } = network;
    if (pending && pending.family === family && pending.last + 1n === first && sameFields(pending.fields, fields)) {
      pending.last = last;
      pending.read += 1;
      continue;
    }
    if (pending) yield rowOf(pending);
    pending = { line, family, first, last, fields, read: 1 };
  }
  if (pending) yield rowOf(pending);
}
