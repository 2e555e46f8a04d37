// An IP dataset's name, format and precedence as an operator gives them (docs/ip-data.md).

export const IP_DATASET_FORMATS = ['mmdb', 'csv', 'ndjson'] as const;
export type IpDatasetFormat = (typeof IP_DATASET_FORMATS)[number];

export const isIpDatasetFormat = (value: unknown): value is IpDatasetFormat => (IP_DATASET_FORMATS as readonly unknown[]).includes(value);

/** The format a file's extension names (.mmdb, .csv, .ndjson or .jsonl, any case), or null. */
export function formatOfFile(file: string): IpDatasetFormat | null {
  const extension = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (extension === 'jsonl') return 'ndjson';
  return isIpDatasetFormat(extension) ? extension : null;
}

// Letters, digits, dot, dash, underscore: it is printed in lists and written in COPY text as is.
const DATASET_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

export function checkDatasetName(name: string): string | null {
  return DATASET_NAME.test(name) ? null : 'dataset: 1-63 letters, digits, ".", "-" or "_", starting with a letter or digit';
}

/** Postgres' integer: the precedence column. */
export function checkPrecedence(value: number): string | null {
  return Number.isInteger(value) && Math.abs(value) <= 2_147_483_647 ? null : 'precedence: a whole number';
}
