// IP datasets (visitors.ip_datasets) as imports replace them: one transaction on one connection
// per import or delete, holding the dataset's lock, so two imports of one dataset run one after the
// other and never touch another dataset. Listing and deleting for the operator CLI.
import pg from 'pg';
import { AppError } from '@glimpse/errors';
import { checkDatasetName, type IpDatasetFormat } from '../domain/ip-dataset.js';

export type IpDatasetKind = 'ranges' | 'location';

export interface CurrentDataset {
  kind: IpDatasetKind;
  version: number;
  precedence: number;
}

export interface IpDatasetSummary {
  name: string;
  kind: IpDatasetKind;
  format: string;
  precedence: number;
  version: number;
  /** Ranges, or a location file's bytes. */
  size: number;
  importedAt: Date;
}

export function assertDatasetName(name: string): void {
  const problem = checkDatasetName(name);
  if (problem) throw new AppError('invalid_request', problem);
}

async function connect(databaseUrl: string, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: applicationName });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return client;
}

/** Runs `work` in a transaction holding dataset `name`'s lock (taken whether or not the dataset exists). */
async function lockedTransaction<T>(databaseUrl: string, applicationName: string, name: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(databaseUrl, applicationName);
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('glimpse.ip_dataset:' || $1, 0))`, [name]);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Runs `work` in a transaction holding dataset `name`'s lock, with the dataset as it is (null: none
 * yet); a dataset of another kind is refused, so a ranges import never leaves a location file behind.
 */
export function inDatasetTransaction<T>(
  options: { databaseUrl: string; dataset: string; kind: IpDatasetKind; applicationName: string },
  work: (client: pg.Client, current: CurrentDataset | null) => Promise<T>,
): Promise<T> {
  return lockedTransaction(options.databaseUrl, options.applicationName, options.dataset, async (client) => {
    const { rows } = await client.query<CurrentDataset>('SELECT kind, version::float8 AS version, precedence FROM ip_datasets WHERE name = $1 FOR UPDATE', [
      options.dataset,
    ]);
    const current = rows[0] ?? null;
    if (current && current.kind !== options.kind) {
      throw new AppError(
        'invalid_request',
        `dataset ${options.dataset} holds ${current.kind}, not ${options.kind}: delete it first (glimpse ip-datasets delete)`,
      );
    }
    return work(client, current);
  });
}

/** The dataset's row moved to `version`, then every other version of it deleted (same transaction). */
export async function replaceDatasetVersion(
  client: pg.Client,
  dataset: { name: string; kind: IpDatasetKind; format: IpDatasetFormat; precedence: number; version: number; size: number },
): Promise<void> {
  await client.query(
    `INSERT INTO ip_datasets (name, kind, format, precedence, version, size, imported_at) VALUES ($1, $2, $3, $4, $5, $6, now())
     ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, format = EXCLUDED.format, precedence = EXCLUDED.precedence,
       version = EXCLUDED.version, size = EXCLUDED.size, imported_at = EXCLUDED.imported_at`,
    [dataset.name, dataset.kind, dataset.format, dataset.precedence, dataset.version, dataset.size],
  );
  const table = dataset.kind === 'ranges' ? 'ip_ranges' : 'ip_dataset_files';
  await client.query(`DELETE FROM ${table} WHERE dataset = $1 AND version <> $2`, [dataset.name, dataset.version]);
}

export async function listIpDatasets(databaseUrl: string): Promise<IpDatasetSummary[]> {
  const client = await connect(databaseUrl, 'glimpse-ip-datasets');
  try {
    const { rows } = await client.query<IpDatasetSummary>(
      `SELECT name, kind, format, precedence, version::float8 AS version, size::float8 AS size, imported_at AS "importedAt"
       FROM ip_datasets ORDER BY kind DESC, precedence DESC, name`,
    );
    return rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Deletes a dataset, its ranges and its files in one transaction; not_found when there is none. */
export function deleteIpDataset(databaseUrl: string, name: string): Promise<{ dataset: string; kind: IpDatasetKind; deleted: number }> {
  assertDatasetName(name);
  return lockedTransaction(databaseUrl, 'glimpse-ip-datasets', name, async (client) => {
    const { rows } = await client.query<{ kind: IpDatasetKind }>('DELETE FROM ip_datasets WHERE name = $1 RETURNING kind', [name]);
    if (!rows[0]) throw new AppError('not_found', `no IP dataset named ${name}`);
    const ranges = await client.query('DELETE FROM ip_ranges WHERE dataset = $1', [name]);
    const files = await client.query('DELETE FROM ip_dataset_files WHERE dataset = $1', [name]);
    return { dataset: name, kind: rows[0].kind, deleted: (ranges.rowCount ?? 0) + (files.rowCount ?? 0) };
  });
}
