// The import of an NDJSON file through the product's importPersons (COPY), timed, beside a raw COPY of the same rows:
// the rows it stored are copied out to a file (untimed), then copied into empty tables shaped like
// persons and identities (same columns, keys, indexes and compression, no foreign keys), timed. The
// ratio is how close the importer (parse, validation, identities, staging, merge) comes to the
// database's own ceiling on this machine, in the same run.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const { performance } = require('node:perf_hooks');

/**
 * Writes `count` demo persons of `seed` from index `from` to an NDJSON file (untimed), then imports
 * that file as `glimpse import persons` does (a read stream split into lines), timed: the rate is a
 * file import's, without the demo generator's own cost. `startMeter()` (optional) as in load.js.
 */
/** @param {Record<string, any>} options @returns {Promise<any>} */
async function timedCopyImport({ enrichment, databaseUrl, seed, from = 0, count, onProgress, onWriting = () => {}, startMeter }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-import-'));
  const file = path.join(dir, 'persons.ndjson');
  const ids = [];
  try {
    onWriting(`writing ${count} persons to ${file} (untimed)`);
    await pipeline(
      Readable.from(
        (function* lines() {
          for (let i = from; i < from + count; i += 1) {
            const person = enrichment.generatePerson(i, seed);
            ids.push(person.profile.id);
            yield `${JSON.stringify(person)}\n`;
          }
        })(),
      ),
      fs.createWriteStream(file),
    );
    const bytes = fs.statSync(file).size;
    const stopMeter = startMeter ? startMeter() : null;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const lines = readline.createInterface({ input: fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), crlfDelay: Infinity });
    const report = await enrichment.importPersons(lines, { databaseUrl, defaultPhoneRegion: 'US', onProgress });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return {
      report,
      ids,
      seed,
      from,
      count,
      fileMiB: Math.round(bytes / 1048576),
      wallSec: Math.round(wallMs / 10) / 100,
      personsPerSec: Math.round((report.imported / wallMs) * 1000),
      importerCpuMsPerPerson: Math.round(((cpu.user + cpu.system) / 1000 / report.imported) * 1000) / 1000,
      ...(stopMeter ? { cpu: stopMeter() } : {}),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// A rate needs no more rows than this: a bigger import is compared on its first rows.
const RAW_COPY_MAX = 100_000;

/**
 * Copies the persons named by `ids` (at most RAW_COPY_MAX of them, and their identities) out to
 * files, then times COPY of those files into fresh tables like persons and identities. `pg` is the
 * driver module, `copy` pg-copy-streams.
 */
/** @param {Record<string, any>} options @returns {Promise<any>} */
async function rawCopy({ pg, copy, databaseUrl, ids: allIds, startMeter }) {
  const ids = allIds.slice(0, RAW_COPY_MAX);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-rawcopy-'));
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-rawcopy' });
  await client.connect();
  const files = { persons: path.join(dir, 'persons.copy'), identities: path.join(dir, 'identities.copy') };
  try {
    await client.query('CREATE TEMP TABLE bench_ids (id text PRIMARY KEY)');
    await client.query('INSERT INTO bench_ids SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [ids]);
    await pipeline(
      client.query(copy.to('COPY (SELECT p.id, p.record, p.details, p.updated_at FROM persons p JOIN bench_ids USING (id)) TO STDOUT')),
      fs.createWriteStream(files.persons),
    );
    await pipeline(
      client.query(copy.to('COPY (SELECT i.kind, i.value, i.person_id FROM identities i JOIN bench_ids b ON b.id = i.person_id) TO STDOUT')),
      fs.createWriteStream(files.identities),
    );
    await client.query(`
      DROP TABLE IF EXISTS bench_raw_identities, bench_raw_persons;
      CREATE TABLE bench_raw_persons (LIKE persons INCLUDING ALL);
      CREATE TABLE bench_raw_identities (LIKE identities INCLUDING ALL)`);
    const stopMeter = startMeter ? startMeter() : null;
    const t0 = performance.now();
    await pipeline(
      fs.createReadStream(files.persons, { highWaterMark: 256 * 1024 }),
      client.query(copy.from('COPY bench_raw_persons (id, record, details, updated_at) FROM STDIN')),
    );
    await pipeline(
      fs.createReadStream(files.identities, { highWaterMark: 256 * 1024 }),
      client.query(copy.from('COPY bench_raw_identities (kind, value, person_id) FROM STDIN')),
    );
    const wallMs = performance.now() - t0;
    const persons = Number((await client.query('SELECT count(*) AS n FROM bench_raw_persons')).rows[0].n);
    return {
      persons,
      bytes: fs.statSync(files.persons).size + fs.statSync(files.identities).size,
      wallSec: Math.round(wallMs / 10) / 100,
      personsPerSec: Math.round((persons / wallMs) * 1000),
      ...(stopMeter ? { cpu: stopMeter() } : {}),
    };
  } finally {
    await client.query('DROP TABLE IF EXISTS bench_raw_identities, bench_raw_persons').catch(() => undefined);
    await client.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { timedCopyImport, rawCopy };
