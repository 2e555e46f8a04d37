// What load.js's saturate() and request-load.js's loadRun() share: the loopback check, one
// autocannon run through its programmatic API, its summary, and the warm-up + measured pair.
'use strict';
const autocannon = require('autocannon');

function assertLoopback(url) {
  const { hostname } = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(hostname)) {
    throw new Error(`refusing to send load to ${url}: benchmarks only target loopback`);
  }
}

function autocannonRun(options) {
  return new Promise((resolve, reject) => {
    let firstError;
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve({ ...result, firstError })));
    // autocannon prints nothing unless asked; request errors are counted in the result, the first is kept as a clue.
    instance.on('reqError', (err) => {
      firstError ??= err && err.message;
    });
  });
}

/** @param {any} result @returns {Record<string, any>} */
function summarizeAutocannon(result) {
  const ok = result['2xx'];
  return {
    durationSec: result.duration,
    requests: result.requests.total,
    // Sent but unanswered when the run stopped: the server may still have acted on them.
    inFlightAtEnd: result.requests.sent - result.requests.total,
    ok,
    reqPerSec: Math.round(result.requests.average),
    okPerSec: Math.round(ok / result.duration),
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: Math.round(result.latency.mean * 100) / 100,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
    ...(result.firstError ? { firstError: result.firstError } : {}),
  };
}

/**
 * A warm-up run of `base` (when `warmupSec` > 0; discarded but summarized) then the measured one.
 * `onMeasuring(on)` (optional) is told when the measured run starts and ends. `startMeter()`
 * (optional) is called as the measured run starts; its returned function's value is `measured.cpu`.
 */
/** @param {Record<string, any>} options @returns {Promise<any>} */
async function warmupThenMeasure({ base, warmupSec, durationSec, startMeter, onMeasuring }) {
  const warmup = warmupSec > 0 ? summarizeAutocannon(await autocannonRun({ ...base, duration: warmupSec })) : null;
  if (onMeasuring) onMeasuring(true);
  const stopMeter = startMeter ? startMeter() : null;
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const measured = summarizeAutocannon(await autocannonRun({ ...base, duration: durationSec }));
  // On the monotonic clock V8 stamps CPU profile samples with, to cut a child's profile to this run.
  measured.window = { startUs, endUs: Number(process.hrtime.bigint() / 1000n) };
  if (onMeasuring) onMeasuring(false);
  if (stopMeter) measured.cpu = stopMeter();
  return { warmup, measured };
}

module.exports = { assertLoopback, autocannonRun, summarizeAutocannon, warmupThenMeasure };
