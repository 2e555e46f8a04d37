// The visitors service's imports of IP data over its internal API: the gateway's operator API
// streams the file here (POST /operator/imports/ip-ranges, /operator/imports/locations) and the same
// code as the direct `glimpse import ip-ranges` / `import locations` writes it. An IP dataset is
// replaced by one COPY in one transaction: a CSV or NDJSON file is read as lines as it arrives, a
// MaxMind DB, a tree, is read whole first. The City database of locations is read whole, checked and
// stored as the dataset's next version. The answer is the import's report.
import express, { type Request, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { internalCallers, requestBytes, requestLines } from '@glimpse/http';
import { importIpDataset } from '../data/ip-dataset-import.js';
import { assertDatasetName } from '../data/ip-datasets.js';
import { importLocationFile } from '../data/ip-location-import.js';
import { isIpDatasetFormat } from '../domain/ip-dataset.js';

/** A MaxMind DB larger than this is refused (GeoIP2 Enterprise, the largest, is a few hundred MB; a City database about 130 MB). */
const MAX_MMDB_BYTES = 256 * 1024 * 1024;

export interface IpRangesImportOptions {
  /** The service's own database, as its role (it owns ip_ranges). */
  databaseUrl: string;
  internalTokens: Partial<Record<string, string>>;
}

function optionsOf(req: Request) {
  const { dataset, format, precedence, columns } = req.query;
  if (typeof dataset !== 'string') throw new AppError('invalid_request', 'dataset: name the dataset to replace');
  if (!isIpDatasetFormat(format)) throw new AppError('invalid_request', 'format: mmdb, csv or ndjson');
  if (precedence !== undefined && (typeof precedence !== 'string' || !/^-?\d{1,10}$/.test(precedence)))
    throw new AppError('invalid_request', 'precedence takes a whole number');
  if (columns !== undefined && typeof columns !== 'string') throw new AppError('invalid_request', 'columns: a comma-separated list');
  return {
    dataset,
    format,
    precedence: precedence === undefined ? undefined : Number(precedence),
    columns: columns === undefined ? undefined : columns.split(','),
  };
}

export function ipRangesImportRoutes({ databaseUrl, internalTokens }: IpRangesImportOptions): Router {
  const router = express.Router();
  // Only the gateway imports; no body parser, the request is read as it arrives.
  router.use('/internal/imports', internalCallers({ tokens: internalTokens, routes: { gateway: '*' } }));
  router.post('/internal/imports/ip-ranges', async (req, res) => {
    const options = optionsOf(req);
    const source = options.format === 'mmdb' ? await requestBytes(req, MAX_MMDB_BYTES) : requestLines(req);
    res.json(await importIpDataset(source, { ...options, databaseUrl }));
  });
  router.post('/internal/imports/locations', async (req, res) => {
    const { dataset } = req.query;
    if (dataset !== undefined && typeof dataset !== 'string') throw new AppError('invalid_request', 'dataset must be given once');
    // A bad name is refused before the file is read.
    if (dataset !== undefined) assertDatasetName(dataset);
    const bytes = await requestBytes(req, MAX_MMDB_BYTES);
    res.json(await importLocationFile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { databaseUrl, dataset }));
  });
  return router;
}
