// Company-from-IP ranges for the collect benchmark: a generated table of `count` ranges (nine in ten
// IPv4 /24s from 16.0.0.0 up, one in ten IPv6 /48s under 2a00::/16), loaded into visitors.ip_ranges
// through the visitors package's importIpRanges when it has one, else by a COPY of the same rows;
// addresses inside and outside them; and the Postgres CPU of the visitors service's lookup statement.
'use strict';
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const { performance } = require('node:perf_hooks');
const { processCpuSeconds } = require('./cpu-usage.js');

const DOMAIN_SUFFIX = '.bench.example';
const V4_BASE = 16 * 2 ** 24; // 16.0.0.0: the /4 above it holds 1,048,576 /24s

/**
 * The lookup of one chunk's distinct addresses, the most specific range holding each: a copy of the
 * visitors service's `companies` statement (services/visitors/src/data/collected-store.ts), run as
 * the visitors role (its search_path); its package exports it as IP_COMPANY_LOOKUP_SQL, when it does.
 */
const LOOKUP_SQL = `SELECT u.ip, r.company_name, r.company_domain FROM unnest($1::text[]) AS u(ip)
    CROSS JOIN LATERAL (SELECT company_name, company_domain FROM ip_ranges WHERE range >>= u.ip::inet ORDER BY masklen(range) DESC LIMIT 1) r`;

const v4 = (n) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const hex = (n) => n.toString(16);

/** Range `i` of the generated table: { cidr, name, domain }. */
function rangeAt(i) {
  const company = i % 50_000;
  const name = `Bench Company ${company}`;
  const domain = `c${company}${DOMAIN_SUFFIX}`;
  if (i % 10 === 9) {
    const k = Math.floor(i / 10);
    return { cidr: `2a00:${hex(k >>> 16)}:${hex(k & 0xffff)}::/48`, name, domain };
  }
  const j = i - Math.floor(i / 10); // index among the IPv4 ranges
  return { cidr: `${v4(V4_BASE + j * 256)}/24`, name, domain };
}

/** An address inside range `i` (`salt` picks the host). */
function addressIn(i, salt = 0) {
  const { cidr } = rangeAt(i);
  const base = cidr.slice(0, cidr.indexOf('/'));
  if (base.includes(':')) return `${base}${hex(1 + (salt % 0xfffe))}`;
  const parts = base.split('.');
  parts[3] = String(1 + (salt % 254));
  return parts.join('.');
}

/** An address in none of the ranges (TEST-NET-3 and 2001:db8::/32). */
const addressOutside = (salt) => (salt % 2 ? `203.0.113.${1 + (salt % 254)}` : `2001:db8::${hex(1 + (salt % 0xfffe))}`);

function* ndjsonLines(count) {
  for (let i = 0; i < count; i += 1) {
    const r = rangeAt(i);
    yield JSON.stringify({ cidr: r.cidr, company: { name: r.name, domain: r.domain } });
  }
}

function* copyRows(count) {
  let batch = '';
  for (let i = 0; i < count; i += 1) {
    const r = rangeAt(i);
    batch += `${r.cidr}\t${r.name}\t${r.domain}\n`;
    if (batch.length > 256 * 1024) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

/**
 * Makes visitors.ip_ranges hold exactly the `count` generated ranges: kept when an earlier run left
 * them (same count, all ours), else emptied and loaded. `sql` may be any role's; `databaseUrl` the visitors role's. Returns how, how long and at what rate.
 * `visitorsPackage` is the visitors package's exports (its importIpRanges, when present).
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function ensureIpRanges({ sql, pg, databaseUrl, count, visitorsPackage, progress }) {
  const {
    rows: [now],
  } = await sql.query(`SELECT count(*)::bigint AS n, count(*) FILTER (WHERE company_domain LIKE '%' || $1)::bigint AS ours FROM visitors.ip_ranges`, [
    DOMAIN_SUFFIX,
  ]);
  if (Number(now.n) === count && Number(now.ours) === count) return { ranges: count, loadedBy: 'kept from an earlier run' };
  await sql.query('TRUNCATE visitors.ip_ranges');
  const importIpRanges = visitorsPackage?.importIpRanges;
  const t0 = performance.now();
  let loadedBy;
  if (typeof importIpRanges === 'function') {
    loadedBy = 'importIpRanges (visitors package)';
    progress(`ip ranges: importing ${count} through the visitors package's importIpRanges`);
    const report = await importIpRanges(Readable.from(ndjsonLines(count)), { databaseUrl, replace: true, onProgress: () => {} });
    if (report.skipped) throw new Error(`importIpRanges skipped ${report.skipped} generated lines: ${JSON.stringify(report.errors.slice(0, 3))}`);
  } else {
    loadedBy = 'COPY (pg-copy-streams, in the bench)';
    progress(`ip ranges: COPY of ${count} generated rows`);
    const copy = require('pg-copy-streams');
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-ip-ranges' });
    await client.connect();
    try {
      await pipeline(Readable.from(copyRows(count)), client.query(copy.from('COPY ip_ranges (range, company_name, company_domain) FROM STDIN')));
    } finally {
      await client.end();
    }
  }
  const wallMs = performance.now() - t0;
  await sql.query('ANALYZE visitors.ip_ranges');
  const {
    rows: [after],
  } = await sql.query('SELECT count(*)::bigint AS n FROM visitors.ip_ranges');
  if (Number(after.n) !== count) throw new Error(`visitors.ip_ranges holds ${after.n} rows after loading ${count}`);
  return { ranges: count, loadedBy, seconds: Math.round(wallMs / 10) / 100, rangesPerSec: Math.round((count / wallMs) * 1000) };
}

/**
 * Runs `statement` over `lookups` distinct addresses (`insideShare` of them in a range), `chunk` per
 * statement as the consumer does per chunk, on one connection of its own, after an untimed pass over
 * a tenth of them; the backend's CPU (and the wall time) per address, the matches checked.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function measureIpLookup({ pg, databaseUrl, ranges, lookups, chunk, insideShare = 0.8, statement = LOOKUP_SQL }) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-ip-lookup' });
  await client.connect();
  try {
    const {
      rows: [{ pid }],
    } = await client.query('SELECT pg_backend_pid() AS pid');
    const plan = JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${statement}`, [[addressIn(0)]])).rows[0]);
    const usesIndex = /ip_ranges_range_idx/.test(plan);
    const addresses = [];
    const expected = [];
    for (let n = 0; n < lookups; n += 1) {
      // Spread over the table; distinct hosts so no two lookups are the same address.
      const inside = n % 100 < insideShare * 100;
      const i = Math.floor((n * 7919) % ranges);
      addresses.push(inside ? addressIn(i, n) : addressOutside(n));
      expected.push(inside ? rangeAt(i).name : null);
    }
    // As Postgres prints them (2a00:0:0::1 comes back 2a00::1), to match the answers by address.
    const printed = (await client.query('SELECT host(a) AS t FROM unnest($1::inet[]) WITH ORDINALITY AS u(a, o) ORDER BY o', [addresses])).rows.map((r) => r.t);
    const run = async (from, to) => {
      let matched = 0;
      let wrong = 0;
      for (let k = from; k < to; k += chunk) {
        const slice = addresses.slice(k, Math.min(k + chunk, to));
        const { rows } = await client.query(statement, [slice]);
        const byIp = new Map(rows.map((r) => [r.ip, r.company_name]));
        slice.forEach((ip, x) => {
          const got = byIp.get(ip) ?? byIp.get(printed[k + x]) ?? null;
          if (got !== null) matched += 1;
          if (got !== expected[k + x]) wrong += 1;
        });
      }
      return { matched, wrong };
    };
    await run(0, Math.ceil(lookups / 10)); // warm: the index pages a busy service keeps in memory
    const cpu0 = processCpuSeconds(pid) ?? 0;
    const t0 = performance.now();
    const { matched, wrong } = await run(0, lookups);
    const wallMs = performance.now() - t0;
    const cpuMs = ((processCpuSeconds(pid) ?? 0) - cpu0) * 1000;
    return {
      ranges,
      lookups,
      chunk,
      matched,
      wrongMatches: wrong,
      usesIndex,
      postgresCpuMsPerLookup: Math.round((cpuMs / lookups) * 10_000) / 10_000,
      wallMsPerLookup: Math.round((wallMs / lookups) * 10_000) / 10_000,
    };
  } finally {
    await client.end();
  }
}

module.exports = { LOOKUP_SQL, rangeAt, addressIn, addressOutside, ensureIpRanges, measureIpLookup };
