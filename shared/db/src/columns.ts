// The parameters of a statement that writes many rows at once by unnesting arrays (one array per
// column, `unnest($1::uuid[], $2::text[], …)`): the rows turned into their columns, in order.

/** A column: a field of the row, or what a function makes of the row (a JSON text, a null). */
export type Column<T> = keyof T | ((row: T) => unknown);

/** One array per column, each holding that column's value of every row, in the rows' order. */
export function columns<T>(rows: readonly T[], of: readonly Column<T>[]): unknown[][] {
  return of.map((column) => rows.map((row) => (typeof column === 'function' ? column(row) : row[column])));
}
