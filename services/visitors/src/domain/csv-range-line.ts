// One line of a CSV of ranges, `start,end,…`: inclusive, any alignment, IPv4 or IPv6 (the layout
// of DB-IP, IPinfo and ip-location-db files), or a CIDR column instead (IPinfo Lite's `network`).
// The columns are named by the importer (--columns): start, end (or cidr), asn, name, domain, type;
// any other name is a column to ignore. A first line whose start is not an address is a header, and
// skipped.
import { parseAddress } from './ip-address.js';
import { cidrBounds, rangeBounds, type Bounds } from './ip-bounds.js';
import { checkFields, type IpRangeRow } from './ip-range-row.js';

export const CSV_FIELDS = ['start', 'end', 'cidr', 'asn', 'name', 'domain', 'type'] as const;
export type CsvField = (typeof CSV_FIELDS)[number];
/** The column (from 0) each recognised field is in: where the range is (start and end, or a CIDR), and its fields. */
export interface CsvColumns {
  place: { start: number; end: number } | { cidr: number };
  asn?: number;
  name?: number;
  domain?: number;
  type?: number;
}

/** ip-location-db's ASN files (start_ip,end_ip,asn,org), and the first four columns of most others. */
export const DEFAULT_CSV_COLUMNS: readonly string[] = ['start', 'end', 'asn', 'name'];

const isField = (name: string): name is CsvField => (CSV_FIELDS as readonly string[]).includes(name);

export function csvColumns(names: readonly string[]): CsvColumns | { error: string } {
  const columns: Partial<Record<CsvField, number>> = {};
  for (const [index, raw] of names.entries()) {
    const name = raw.trim().toLowerCase();
    if (!isField(name)) continue;
    if (columns[name] !== undefined) return { error: `columns: ${name} named twice` };
    columns[name] = index;
  }
  const { start, end, cidr, asn, name, domain, type } = columns;
  const fields = { asn, name, domain, type };
  if (start !== undefined && end !== undefined && cidr === undefined) return { place: { start, end }, ...fields };
  if (cidr !== undefined && start === undefined && end === undefined) return { place: { cidr }, ...fields };
  return { error: 'columns: start and end, or cidr, are required' };
}

/**
 * The fields of one CSV line (RFC 4180 quoting: "Foo, Inc." and "say ""hi"""), or null when a
 * quote is left open or text follows a closing quote. A quoted field cannot span lines here.
 */
export function splitCsvLine(line: string): string[] | null {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i += 1;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote === -1) return null;
        field += line.slice(i, quote);
        i = quote + 1;
        if (line[i] !== '"') break;
        field += '"';
        i += 1;
      }
      if (i < line.length && line[i] !== ',') return null;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      field = line.slice(i, end);
      if (field.includes('"')) return null;
      i = end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i += 1; // the comma
  }
}

const field = (fields: readonly string[], index: number | undefined) => (index === undefined ? undefined : fields[index]);

/** The first column that places the range: the start, or the CIDR. */
const placeColumn = ({ place }: CsvColumns) => ('cidr' in place ? place.cidr : place.start);

function boundsOf(fields: readonly string[], { place }: CsvColumns): Bounds | { error: string } {
  if ('cidr' in place) {
    const cidr = fields[place.cidr];
    if (cidr === undefined) return { error: `fewer than ${place.cidr + 1} columns` };
    const bounds = cidrBounds(cidr);
    return 'error' in bounds ? { error: `cidr: ${bounds.error}` } : bounds;
  }
  const start = fields[place.start];
  const end = fields[place.end];
  if (start === undefined || end === undefined) return { error: `fewer than ${Math.max(place.start, place.end) + 1} columns` };
  return rangeBounds(start, end);
}

export function parseCsvFields(fields: readonly string[], columns: CsvColumns): IpRangeRow | { error: string } {
  const bounds = boundsOf(fields, columns);
  if ('error' in bounds) return bounds;
  const checked = checkFields({
    asn: field(fields, columns.asn),
    name: field(fields, columns.name),
    domain: field(fields, columns.domain),
    type: field(fields, columns.type),
  });
  if ('error' in checked) return checked;
  return { family: bounds.family, first: bounds.first, last: bounds.last, asn: checked.asn, name: checked.name, domain: checked.domain, type: checked.type };
}

/**
 * A parser of a file's lines in order: a row, an error, or null for the header (a first line whose
 * start or CIDR is not an address; a byte-order mark before it is dropped).
 */
export function csvRangeParser(columns: CsvColumns): (line: string) => IpRangeRow | { error: string } | null {
  let first = true;
  return (line) => {
    const text = first && line.startsWith('\uFEFF') ? line.slice(1) : line;
    const fields = splitCsvLine(text);
    const isFirst = first;
    first = false;
    if (fields === null) return { error: 'a quoted field is not closed, or text follows its closing quote' };
    if (isFirst && parseAddress((fields[placeColumn(columns)] ?? '').trim().split('/')[0]!) === null) return null;
    return parseCsvFields(fields, columns);
  };
}
