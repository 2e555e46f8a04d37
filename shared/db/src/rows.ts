// A raw query's row as the services hand it on: camelCase keys, timestamps as ISO 8601 strings.

/** snake_case to camelCase (`started_at` → `startedAt`). */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

type Iso<V> = V extends Date ? string : V;

/** The row with camelCase keys, each Date an ISO string. */
export type CamelRow<R> = { [K in keyof R as CamelCase<K & string>]: Iso<R[K]> };

export function camelRow<R extends object>(row: R): CamelRow<R> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      value instanceof Date ? value.toISOString() : value,
    ]),
  ) as CamelRow<R>;
}
