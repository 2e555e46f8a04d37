// In-process closed-loop load on a database client: `concurrency` workers each await one query at
// a time until the time or the query budget runs out. Reports ops/s, latency percentiles and the
// CPU this process spent per query (where a client library's overhead shows even when the
// database is the bottleneck).
'use strict';
const { summarize, round } = require('./stats.js');

// stats.summarize rounds to 0.1; database round trips are around a millisecond, so in µs first.
function inMs(summaryUs) {
  const out = {};
  for (const [k, v] of Object.entries(summaryUs)) out[k] = k === 'count' || v === null ? v : round(v / 1000, 3);
  return out;
}

/** @param {Record<string, any>} options @returns {Promise<any>} */
async function loop({ concurrency, durationMs, maxOps, query, record }) {
  const deadline = performance.now() + durationMs;
  let started = 0;
  let failed = 0;
  let firstError;
  const worker = async () => {
    while (started < maxOps && performance.now() < deadline) {
      started += 1;
      const t0 = performance.now();
      try {
        const found = await query();
        if (record) record(performance.now() - t0, found);
      } catch (err) {
        failed += 1;
        firstError ??= err && err.message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { started, failed, firstError };
}

/**
 * `query()` runs one query and resolves truthy when it found its row (a miss is counted: the ids
 * come from the imported rows, so a miss means a broken benchmark). `warmupOps` queries run first,
 * unmeasured. `startMeter()` as in load.js: its returned function's value is `cpu`.
 */
/** @param {Record<string, any>} options @returns {Promise<any>} */
async function queryRun({ concurrency, durationSec, maxOps, warmupOps = 0, query, startMeter }) {
  if (warmupOps > 0) await loop({ concurrency, durationMs: 60_000, maxOps: warmupOps, query });
  const latencies = [];
  let misses = 0;
  const stopMeter = startMeter ? startMeter() : null;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { started, failed, firstError } = await loop({
    concurrency,
    durationMs: durationSec * 1000,
    maxOps,
    query,
    record(ms, found) {
      latencies.push(ms);
      if (!found) misses += 1;
    },
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const ops = latencies.length;
  return {
    ops,
    failed,
    misses,
    ...(firstError ? { firstError } : {}),
    wallSec: round(wallMs / 1000, 2),
    opsPerSec: Math.round((ops / wallMs) * 1000),
    latencyMs: inMs(summarize(latencies.map((ms) => ms * 1000))),
    clientCpuMsPerOp: ops ? round((cpu.user + cpu.system) / 1000 / ops, 3) : null,
    attempted: started,
    ...(stopMeter ? { cpu: stopMeter() } : {}),
  };
}

module.exports = { queryRun };
