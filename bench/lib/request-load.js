// autocannon runs where every request is drawn from a generator (path and/or body), so a lookup
// benchmark asks for a different id each time instead of hitting one cached row; optionally at a
// fixed overall rate. load.js's saturate() varies only the body, which suits POST /events.
'use strict';
const autocannon = require('autocannon');
const { assertLoopback } = require('./load.js');

function run(options) {
  return new Promise((resolve, reject) => {
    let firstError;
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve({ ...result, firstError })));
    instance.on('reqError', (err) => { firstError ??= err && err.message; });
  });
}

function summarize(result) {
  const ok = result['2xx'];
  return {
    durationSec: result.duration,
    requests: result.requests.total,
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
 * A warm-up run (discarded, summarized) then the measured one. `nextRequest()` returns the parts of
 * each request that vary ({ path } and/or { body }); `url` gives the origin and the default path.
 * `overallRate` (requests/s over all connections) turns saturation into a fixed-rate run: note that
 * autocannon lets each connection send its share back to back at the start of every second, so
 * arrivals come in bursts, and its coordinated-omission correction assumes a 1 ms interval at any
 * rate, hence `ignoreCoordinatedOmission` for it. `startMeter()` (optional) is called as the
 * measured run starts; its returned function's value is `measured.cpu`.
 */
async function loadRun({ url, method = 'GET', headers = {}, connections, durationSec, warmupSec = 0, nextRequest, overallRate, startMeter, timeoutSec = 10 }) {
  assertLoopback(url);
  const target = new URL(url);
  const requests = [{
    method,
    path: target.pathname + target.search,
    headers,
    setupRequest(req) {
      return { ...req, ...nextRequest() };
    },
  }];
  const base = {
    url: target.origin,
    connections,
    pipelining: 1,
    timeout: timeoutSec,
    requests,
    ...(overallRate ? { overallRate, ignoreCoordinatedOmission: true } : {}),
  };
  const warmup = warmupSec > 0 ? summarize(await run({ ...base, duration: warmupSec })) : null;
  const stopMeter = startMeter ? startMeter() : null;
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const measured = summarize(await run({ ...base, duration: durationSec }));
  // On the clock V8 stamps CPU profile samples with, to cut a child's profile to this run.
  measured.window = { startUs, endUs: Number(process.hrtime.bigint() / 1000n) };
  if (stopMeter) measured.cpu = stopMeter();
  return { warmup, measured };
}

module.exports = { loadRun };
