// Imports demo persons through the product's importPersons and says where the time went. The
// importer writes one batch while it parses the next, so wall time does not split into phases;
// instead the importer's event loop is either busy (generating the demo lines, which a file import
// would not do, or parsing, validating and normalizing identities, serializing for the driver) or
// idle, waiting for the database. Each batch's transaction time is summed too (it overlaps).
'use strict';
const { performance } = require('node:perf_hooks');

/**
 * The database writes are timed by wrapping `db.$transaction`, which upsertPersons issues once a
 * batch. `enrichment` is the built @glimpse/enrichment module (generatePerson, importPersons).
 * `startMeter()` (optional, as in load.js): its returned function's value is `cpu`.
 */
async function timedPersonImport({ enrichment, db, seed, from = 0, count, batchSize = 1000, onProgress, startMeter }) {
  const timing = { generateMs: 0, dbWriteMs: 0, transactions: 0 };
  const ids = [];
  async function* lines() {
    for (let i = from; i < from + count; i += 1) {
      const t0 = performance.now();
      const person = enrichment.generatePerson(i, seed);
      ids.push(person.profile.id);
      const line = JSON.stringify(person);
      timing.generateMs += performance.now() - t0;
      yield line;
    }
  }
  const timedDb = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === '$transaction') {
        return async (...args) => {
          const t0 = performance.now();
          try {
            return await value.apply(target, args);
          } finally {
            timing.dbWriteMs += performance.now() - t0;
            timing.transactions += 1;
          }
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const stopMeter = startMeter ? startMeter() : null;
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const report = await enrichment.importPersons(lines(), { db: timedDb, defaultPhoneRegion: 'US', batchSize, onProgress });
  const wallMs = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  const waitMs = Math.max(0, wallMs - elu.active);
  const otherMs = Math.max(0, elu.active - timing.generateMs);
  const share = (ms) => Math.round((ms / wallMs) * 1000) / 10;
  return {
    report,
    ids,
    seed,
    from,
    count,
    batchSize,
    wallSec: Math.round(wallMs / 10) / 100,
    personsPerSec: Math.round((report.imported / wallMs) * 1000),
    // Without the generator: what a file import would manage, if reading the file were free.
    personsPerSecExcludingGeneration: Math.round((report.imported / (wallMs - timing.generateMs)) * 1000),
    // Shares of the wall time, adding up to 100 %.
    breakdownPct: { generate: share(timing.generateMs), parseValidateIdentities: share(otherMs), waitingForDb: share(waitMs) },
    breakdownMs: { generate: Math.round(timing.generateMs), parseValidateIdentities: Math.round(otherMs), waitingForDb: Math.round(waitMs) },
    // Summed over the batches; overlaps the parsing of the next batch.
    dbTransactionsMs: Math.round(timing.dbWriteMs),
    dbTransactionsPct: share(timing.dbWriteMs),
    transactions: timing.transactions,
    importerCpuPctOfOneCore: Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 1000) / 10,
    ...(stopMeter ? { cpu: stopMeter() } : {}),
  };
}

module.exports = { timedPersonImport };
