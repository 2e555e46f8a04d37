// Postgres COPY text format: one row a line, columns separated by tabs, and a backslash, tab,
// newline or carriage return inside a value escaped. JSON text (as JSON.stringify writes it) holds
// no raw control characters, only backslashes, so most values pass through untouched.

const SPECIAL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function copyValue(value: string | null): string {
  if (value === null) return '\\N';
  SPECIAL.lastIndex = 0;
  return SPECIAL.test(value) ? value.replace(SPECIAL, (c) => ESCAPES[c]!) : value;
}

/** One row of COPY text, newline included. */
export function copyRow(values: (string | null)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i += 1) line += (i === 0 ? '' : '\t') + copyValue(values[i] as string | null);
  return `${line}\n`;
}
