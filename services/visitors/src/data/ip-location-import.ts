// Imports the City MaxMind DB file that locates visitors: checked, then stored whole in
// visitors.ip_dataset_files (chunks of 4 MB) as the dataset's next version, the old version's chunks
// deleted in the same transaction. Each replica reads the file back and looks addresses up in it.
import fs from 'node:fs/promises';
import { AppError } from '@glimpse/errors';
import { openMmdb, type MmdbFile } from '../domain/mmdb-networks.js';
import { assertDatasetName, inDatasetTransaction, replaceDatasetVersion } from './ip-datasets.js';

export interface ImportLocationFileOptions {
  /** As the visitors role (it owns ip_dataset_files). */
  databaseUrl: string;
  /** Default: location. */
  dataset?: string;
}

export interface LocationImportReport {
  dataset: string;
  version: number;
  databaseType: string;
  bytes: number;
  chunks: number;
}

const CHUNK_BYTES = 4 * 1024 * 1024;
// Records looked at when the metadata does not say City: enough to find a located one in any real file.
const RECORDS_SAMPLED = 100;

const hasLocation = (record: unknown) => typeof record === 'object' && record !== null && ('city' in record || 'country' in record);

/** A City database by its metadata, or by records that carry a country or a city. */
function looksLikeCity(file: MmdbFile): boolean {
  if (/city/i.test(file.databaseType)) return true;
  let sampled = 0;
  for (const network of file.networks()) {
    if (hasLocation(file.record(network.pointer))) return true;
    sampled += 1;
    if (sampled >= RECORDS_SAMPLED) break;
  }
  return false;
}

function checkedCityFile(bytes: Buffer): MmdbFile {
  let file: MmdbFile;
  try {
    file = openMmdb(bytes);
  } catch (err) {
    throw new AppError('invalid_request', `not a MaxMind DB file: ${(err as Error).message}`);
  }
  if (!looksLikeCity(file)) throw new AppError('invalid_request', `not a City database (${file.databaseType}): its records have no country or city`);
  return file;
}

export async function importLocationFile(file: string | Buffer, options: ImportLocationFileOptions): Promise<LocationImportReport> {
  const dataset = options.dataset ?? 'location';
  assertDatasetName(dataset);
  const bytes = typeof file === 'string' ? await fs.readFile(file) : file;
  const { databaseType } = checkedCityFile(bytes);
  return inDatasetTransaction(
    { databaseUrl: options.databaseUrl, dataset, kind: 'location', applicationName: 'glimpse-import-locations' },
    async (client, current) => {
      const version = (current?.version ?? 0) + 1;
      let chunks = 0;
      for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
        await client.query('INSERT INTO ip_dataset_files (dataset, version, seq, bytes) VALUES ($1, $2, $3, $4)', [
          dataset,
          version,
          chunks,
          bytes.subarray(offset, offset + CHUNK_BYTES),
        ]);
        chunks += 1;
      }
      await replaceDatasetVersion(client, {
        name: dataset,
        kind: 'location',
        format: 'mmdb',
        precedence: current?.precedence ?? 0,
        version,
        size: bytes.length,
      });
      return { dataset, version, databaseType, bytes: bytes.length, chunks };
    },
  );
}
