// import ip-ranges / import locations (the IP datasets that name a visitor's network and company and
// locate it: MaxMind DB, CSV of ranges, NDJSON company lists) and ip-datasets (list, delete). They
// write the visitors service's tables through its own code, as its role (glimpse_visitors).
import fs from 'node:fs';
import { DATABASE_ROLES, roleDatabaseUrl } from '@glimpse/config';
import { AppError } from '@glimpse/errors';
import {
  deleteIpDataset,
  formatOfFile,
  importIpDataset,
  importLocationFile,
  isIpDatasetFormat,
  listIpDatasets,
  type IpDatasetImportReport,
  type IpDatasetSummary,
  type LocationImportReport,
} from '@glimpse/visitors';
import { required, table, UsageError, type Command, type CommandContext } from '../command.js';
import { loadConfig } from '../config.js';
import { summary, withProgress } from './imports.js';
import { importApi, uploadFile } from './import-upload.js';
import { urlOption } from '../operator-command.js';

const visitorsDatabaseUrl = () => roleDatabaseUrl(loadConfig().DATABASE_URL, DATABASE_ROLES.visitors);

/** How ip-datasets and network-types reach the data: the gateway when one is named, else the database. */
export const THROUGH_GATEWAY =
  "Through a gateway's operator API when --url or GLIMPSE_URL names one (GLIMPSE_OPERATOR_TOKEN): the visitors\nservice does it, and this machine needs no database. Without one, as the visitors service's role\n(DATABASE_URL as glimpse_visitors), the way a Job in the cluster runs it.";

function existingFile(file: string | undefined, what: string): string {
  if (!file) throw new UsageError(`name the ${what} to import`);
  if (!fs.existsSync(file)) throw new AppError('not_found', `no such file: ${file}`);
  return file;
}

/** The format asked for, else the file's extension's. */
function formatOf(values: CommandContext['values'], file: string) {
  const format = values.format ?? formatOfFile(file);
  if (!isIpDatasetFormat(format)) throw new UsageError(`--format: mmdb, csv or ndjson (${file} does not say by its extension)`);
  return format;
}

function precedenceOf(values: CommandContext['values']): number | undefined {
  if (values.precedence === undefined) return undefined;
  if (typeof values.precedence !== 'string' || !/^-?\d{1,10}$/.test(values.precedence)) throw new UsageError('--precedence takes a whole number');
  return Number(values.precedence);
}

const importIpRangesUsage = `glimpse import ip-ranges FILE --dataset NAME [--format mmdb|csv|ndjson] [--precedence N] [--columns start,end,asn,name] [--url URL] [--json]

Replaces dataset NAME with the file's ranges, in one transaction (lookups see the old ranges until the
new ones are in; no other dataset is touched). Bad lines are skipped and reported with their numbers.
  --format      mmdb (MaxMind DB: GeoLite2/GeoIP2 ASN, ISP, Connection-Type, Enterprise; DB-IP; IPinfo),
                csv (inclusive start,end ranges, IPv4 and IPv6, any alignment; a header line is skipped)
                or ndjson ({"cidr", "company": {"name", "domain"}, "type"?, "asn"?}; typed business
                unless it says). Default: from the extension (.mmdb, .csv, .ndjson or .jsonl).
  --precedence  higher wins where datasets overlap (default: the dataset's, 0 for a new one)
  --columns     a CSV's columns, in order: start, end (or cidr), asn, name, domain, type; "-" or
                any other name is ignored (default start,end,asn,name, ip-location-db's ASN layout)
Through a gateway's operator API when --url or GLIMPSE_URL names one (GLIMPSE_OPERATOR_TOKEN): the file is
streamed to it and written by the visitors service; this machine needs no database. Without one, written
as the visitors service's role (DATABASE_URL as glimpse_visitors), the way a Job in the cluster runs it.
See docs/ip-data.md.`;

const datasetHuman = (r: unknown) => {
  const report = r as IpDatasetImportReport;
  return `dataset ${report.dataset}, version ${report.version}\n${summary(report)}`;
};

export const ipDataCommands: Command[] = [
  {
    words: ['import', 'ip-ranges'],
    summary: 'replace an IP dataset (network ranges: asn, organisation, domain, type) from a MaxMind DB, CSV or NDJSON file',
    usage: importIpRangesUsage,
    options: { dataset: { type: 'string' }, format: { type: 'string' }, precedence: { type: 'string' }, columns: { type: 'string' }, ...urlOption },
    run: ({ positionals, values, io }) => {
      const file = existingFile(positionals[0], 'file of ranges');
      const format = formatOf(values, file);
      const options = {
        dataset: required(values, 'dataset'),
        format,
        precedence: precedenceOf(values),
        columns: typeof values.columns === 'string' ? values.columns.split(',') : undefined,
      };
      const api = importApi(values);
      if (api) {
        const query = new URLSearchParams({ dataset: options.dataset, format });
        if (options.precedence !== undefined) query.set('precedence', String(options.precedence));
        if (options.columns) query.set('columns', options.columns.join(','));
        return uploadFile(api, `/operator/imports/ip-ranges?${query.toString()}`, file, io, 'ip ranges');
      }
      return withProgress(io, 'ip ranges', (onProgress) => importIpDataset({ path: file }, { ...options, databaseUrl: visitorsDatabaseUrl(), onProgress }));
    },
    human: datasetHuman,
  },
  {
    words: ['import', 'locations'],
    summary: 'replace the City database (MaxMind DB) that locates visitors',
    usage:
      "glimpse import locations FILE.mmdb [--dataset NAME] [--url URL] [--json]\n\nA GeoIP2/GeoLite2 City database (or one in its format), checked, then stored whole as dataset NAME\n(default location), replacing its previous file in one transaction.\nThrough a gateway's operator API when --url or GLIMPSE_URL names one (GLIMPSE_OPERATOR_TOKEN): the file is\nsent to it whole (at most 256 MiB) and written by the visitors service; this machine needs no database.\nWithout one, written as the visitors service's role (DATABASE_URL as glimpse_visitors).",
    options: { dataset: { type: 'string' }, ...urlOption },
    run: ({ positionals, values, io }) => {
      const file = existingFile(positionals[0], 'City database (.mmdb)');
      const dataset = typeof values.dataset === 'string' ? values.dataset : undefined;
      const api = importApi(values);
      if (api) {
        const query = dataset === undefined ? '' : `?${new URLSearchParams({ dataset }).toString()}`;
        return uploadFile(api, `/operator/imports/locations${query}`, file, io, 'locations');
      }
      return importLocationFile(file, { databaseUrl: visitorsDatabaseUrl(), dataset });
    },
    human: (r) => {
      const report = r as LocationImportReport;
      return `dataset ${report.dataset}, version ${report.version}: ${report.databaseType}, ${report.bytes} bytes in ${report.chunks} chunk(s)`;
    },
  },
  // Before `ip-datasets`: the first command whose words match is the one run.
  {
    words: ['ip-datasets', 'delete'],
    summary: 'delete an IP dataset (its ranges or its file) in one transaction',
    usage: `glimpse ip-datasets delete NAME [--json] [--url URL]\n\nDELETE /operator/ip-datasets/NAME. ${THROUGH_GATEWAY}`,
    options: { ...urlOption },
    run: ({ positionals, values }) => {
      if (!positionals[0]) throw new UsageError('name the dataset to delete');
      const api = importApi(values);
      if (api) return api.call('DELETE', `/operator/ip-datasets/${encodeURIComponent(positionals[0])}`);
      return deleteIpDataset(visitorsDatabaseUrl(), positionals[0]);
    },
    human: (r) => {
      const { dataset, kind, deleted } = r as { dataset: string; kind: string; deleted: number };
      return `deleted dataset ${dataset} (${kind}): ${deleted} ${kind === 'ranges' ? 'ranges' : 'file chunks'}`;
    },
  },
  {
    words: ['ip-datasets'],
    summary: 'list the IP datasets: name, kind, format, precedence, version, size, imported_at',
    usage: `glimpse ip-datasets [--json] [--url URL]\n       glimpse ip-datasets delete NAME\n\nGET /operator/ip-datasets. ${THROUGH_GATEWAY}`,
    options: { ...urlOption },
    run: ({ positionals, values }) => {
      if (positionals.length > 0) throw new UsageError(`unknown: ip-datasets ${positionals[0]}`);
      const api = importApi(values);
      return api ? api.call('GET', '/operator/ip-datasets') : listIpDatasets(visitorsDatabaseUrl());
    },
    human: (r) =>
      table(
        (r as IpDatasetSummary[]).map((d) => ({ ...d, imported_at: d.importedAt })),
        ['name', 'kind', 'format', 'precedence', 'version', 'size', 'imported_at'],
      ),
  },
];
