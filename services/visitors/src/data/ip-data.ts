// The IP data a visitors replica holds in memory: every range dataset's current version as a range
// index, the operators' type overrides, and the City databases of the location datasets. Loaded from
// Postgres at start and again when a dataset's version or an override changes (polled): each load
// reads one snapshot (REPEATABLE READ), builds the new lookup beside the old one and swaps, so a
// page view sees one whole version of every dataset. Datasets whose version did not move are kept.
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Reader, type CityResponse } from 'mmdb-lib';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Registry } from 'prom-client';
import { metricsIn, type Logger } from '@glimpse/logging';
import { isNetworkType, type NetworkType } from '@glimpse/validation';
import {
  byPrecedence,
  createNetworkLookup,
  type Location,
  type NetworkClassifier,
  type NetworkLookup,
  type NetworkRecord,
  type RangeDataset,
  type TypeOverrides,
} from '../domain/network-lookup.js';
import { buildRangeIndex, type RangeInput } from '../domain/range-index.js';

interface DatasetRow {
  name: string;
  kind: string;
  precedence: number;
  version: string;
  /** The version and when it was imported: what tells a replica the dataset changed. */
  stamp: string;
}

interface Loaded {
  ranges: Map<string, RangeDataset & { stamp: string }>;
  /** The location datasets, highest precedence first (e.g. one file for IPv4, one for IPv6). */
  locations: { name: string; precedence: number; stamp: string; locate: (address: string) => Location | null }[];
  overridesKey: string;
  overrides: TypeOverrides;
}

export interface IpData {
  /** The lookup of the data loaded last (empty until the first load). */
  current(): NetworkLookup;
  /** Loads once (a failure is logged and counted; the poll tries again), then polls. */
  start(): Promise<void>;
  /** Loads now if anything changed; resolves when done. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** One COPY text field: \N is null, backslash escapes undone. */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (field.indexOf('\\') < 0) return field;
  return field.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);
}

/** A dataset's ranges, streamed out of Postgres by COPY; equal records become one object. */
async function readRanges(client: pg.Client, name: string, version: string): Promise<RangeInput<NetworkRecord>[]> {
  const records = new Map<string, NetworkRecord>();
  const out: RangeInput<NetworkRecord>[] = [];
  let rest = '';
  const take = (line: string) => {
    const [first, last, asn, org, domain, type] = line.split('\t').map(copyField);
    if (!first || !last) return;
    const key = `${asn}\t${org}\t${domain}\t${type}`;
    let record = records.get(key);
    if (!record) {
      record = { asn: asn === null ? null : Number(asn), name: org ?? null, domain: domain ?? null, type: isNetworkType(type) ? type : null };
      records.set(key, record);
    }
    out.push({ first, last, record });
  };
  const sql = `COPY (SELECT host(first), host(last), asn, name, domain, type FROM ip_ranges WHERE dataset = ${quote(name)} AND version = ${BigInt(version)}) TO STDOUT`;
  await pipeline(
    client.query(copyTo(sql)),
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) take(line);
        done();
      },
      flush(done) {
        if (rest) take(rest);
        done();
      },
    }),
    new Writable({ write: (_c, _e, done) => done(), objectMode: true }),
  );
  return out;
}

/**
 * A City database's answer as a visitor's location: MaxMind's GeoIP2/GeoLite2 layout (DB-IP ships
 * the same), or the flat one of ip-location-db's files ({country_code, state1, city, timezone}).
 */
export function locationOf(r: (CityResponse & FlatCity) | null): Location | null {
  if (!r) return null;
  const location = {
    country: r.country?.iso_code ?? r.registered_country?.iso_code ?? r.country_code ?? null,
    region: r.subdivisions?.[0]?.names?.en ?? (r.state1 || null),
    city: r.city?.names?.en ?? (typeof r.city === 'string' ? r.city || null : null),
    time_zone: r.location?.time_zone ?? (r.timezone || null),
  };
  return location.country || location.city || location.time_zone ? location : null;
}

/** ip-location-db's flat City record. */
interface FlatCity {
  country_code?: string;
  state1?: string;
  timezone?: string;
}

export function cityLocator(file: Buffer): (address: string) => Location | null {
  const reader = new Reader<CityResponse & FlatCity>(file);
  return (address) => {
    try {
      return locationOf(reader.get(address));
    } catch {
      return null; // not an address
    }
  };
}

/** The first location dataset (by precedence) that places the address. */
function locateIn(locations: Loaded['locations']): ((address: string) => Location | null) | undefined {
  if (locations.length === 0) return undefined;
  return (address) => {
    for (const l of locations) {
      const found = l.locate(address);
      if (found) return found;
    }
    return null;
  };
}

/** The gauges and the log a load reports the datasets it read to. */
interface LoadReport {
  logger: Logger;
  segments: Gauge | undefined;
}
type Gauge = ReturnType<ReturnType<typeof metricsIn>['gauge']>;

/** The range datasets as of this read: those whose stamp is unchanged kept, the others read again. */
async function loadRanges(client: pg.Client, datasets: readonly DatasetRow[], loaded: Loaded, { logger, segments }: LoadReport) {
  const ranges = new Map<string, RangeDataset & { stamp: string }>();
  let changed = false;
  for (const d of datasets.filter((x) => x.kind === 'ranges')) {
    const had = loaded.ranges.get(d.name);
    if (had && had.stamp === d.stamp) {
      ranges.set(d.name, { ...had, precedence: d.precedence });
      changed ||= had.precedence !== d.precedence;
      continue;
    }
    const index = buildRangeIndex(await readRanges(client, d.name, d.version));
    ranges.set(d.name, { name: d.name, precedence: d.precedence, stamp: d.stamp, index });
    segments?.set({ dataset: d.name }, index.size.v4 + index.size.v6);
    logger.info({ dataset: d.name, version: d.version, segments: index.size, refused: index.refused }, 'ip dataset loaded');
    changed = true;
  }
  for (const name of loaded.ranges.keys()) {
    if (ranges.has(name)) continue;
    changed = true;
    segments?.remove({ dataset: name });
  }
  return { ranges, changed };
}

/** The location databases as of this read, by precedence: those whose stamp is unchanged kept, the others read again. */
async function loadLocations(client: pg.Client, datasets: readonly DatasetRow[], loaded: Loaded, logger: Logger) {
  const locations: Loaded['locations'] = [];
  for (const d of datasets.filter((x) => x.kind === 'location').sort(byPrecedence)) {
    const had = loaded.locations.find((l) => l.name === d.name && l.stamp === d.stamp);
    if (had) {
      locations.push({ ...had, precedence: d.precedence });
      continue;
    }
    const chunks = await client.query<{ bytes: Buffer }>('SELECT bytes FROM ip_dataset_files WHERE dataset = $1 AND version = $2::bigint ORDER BY seq', [
      d.name,
      d.version,
    ]);
    locations.push({ name: d.name, precedence: d.precedence, stamp: d.stamp, locate: cityLocator(Buffer.concat(chunks.rows.map((c) => c.bytes))) });
    logger.info({ dataset: d.name, version: d.version }, 'location database loaded');
  }
  const key = (l: Loaded['locations']) => l.map((x) => `${x.name}@${x.stamp}:${x.precedence}`).join(',');
  return { locations, changed: key(locations) !== key(loaded.locations) };
}

/** The datasets and overrides in one read-only snapshot; null when nothing changed since `loaded`. */
async function loadChanged(databaseUrl: string, loaded: Loaded, report: LoadReport): Promise<Loaded | null> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'glimpse-visitors-ip-data' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // A version with its import time: a dataset deleted and imported again starts at version 1 again.
    const datasets = (
      await client.query<DatasetRow>(
        `SELECT name, kind, precedence, version::text AS version, version::text || '@' || (extract(epoch FROM imported_at) * 1000)::bigint AS stamp FROM ip_datasets`,
      )
    ).rows;
    const rows = (
      await client.query<{ kind: string; value: string; type: string }>('SELECT kind, value, type FROM network_type_overrides ORDER BY kind, value')
    ).rows;
    const overridesKey = rows.map((r) => `${r.kind}\t${r.value}\t${r.type}`).join('\n');
    const ranges = await loadRanges(client, datasets, loaded, report);
    const locations = await loadLocations(client, datasets, loaded, report.logger);
    await client.query('COMMIT');
    if (overridesKey === loaded.overridesKey && !ranges.changed && !locations.changed) return null;
    const overrides: TypeOverrides = {
      asn: new Map(rows.filter((r) => r.kind === 'asn' && isNetworkType(r.type)).map((r) => [Number(r.value), r.type as NetworkType])),
      org: new Map(rows.filter((r) => r.kind === 'org' && isNetworkType(r.type)).map((r) => [r.value, r.type as NetworkType])),
    };
    return { ranges: ranges.ranges, locations: locations.locations, overridesKey, overrides };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function createIpData(options: { databaseUrl: string; classify: NetworkClassifier; pollMs: number; logger: Logger; registry?: Registry }): IpData {
  const { logger } = options;
  let loaded: Loaded = { ranges: new Map(), locations: [], overridesKey: '', overrides: { asn: new Map(), org: new Map() } };
  let lookup = createNetworkLookup({ datasets: [], classify: options.classify });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const metrics = options.registry ? metricsIn(options.registry) : null;
  const segments = metrics?.gauge('glimpse_ip_dataset_segments', 'Segments of each IP dataset held in memory (after nested ranges are flattened)', ['dataset']);
  const failures = metrics?.counter('glimpse_ip_data_load_failures_total', 'Loads of the IP datasets that failed (the previous data stays in use)');
  const loadSeconds = metrics?.gauge('glimpse_ip_data_load_seconds', 'How long the last load of changed IP datasets took');

  async function load(): Promise<void> {
    const started = performance.now();
    const next = await loadChanged(options.databaseUrl, loaded, { logger, segments });
    if (!next) return;
    loaded = next;
    lookup = createNetworkLookup({
      datasets: [...next.ranges.values()],
      overrides: next.overrides,
      classify: options.classify,
      locate: locateIn(next.locations),
    });
    loadSeconds?.set((performance.now() - started) / 1000);
  }

  const refresh = () => {
    // One load at a time: a poll during a long load waits for it instead of loading twice.
    running ??= load()
      .catch((err: unknown) => {
        failures?.inc();
        logger.warn({ err }, 'ip data: load failed; the data loaded before stays in use');
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  return {
    current: () => lookup,
    refresh,
    async start() {
      await refresh();
      const poll = () => {
        timer = setTimeout(() => void refresh().finally(() => timer && poll()), options.pollMs);
        timer.unref();
      };
      poll();
    },
    async stop() {
      const t = timer;
      timer = undefined;
      clearTimeout(t);
      await running;
    },
  };
}
