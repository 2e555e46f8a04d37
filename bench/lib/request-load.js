// autocannon runs where every request is drawn from a generator (path and/or body), so a lookup
// benchmark asks for a different id each time instead of hitting one cached row; optionally at a
// fixed overall rate. load.js's saturate() varies only the body, which suits POST /events.
'use strict';
const { assertLoopback, warmupThenMeasure } = require('./autocannon-run.js');

/**
 * A warm-up run (discarded, summarized) then the measured one. `nextRequest()` returns the parts of
 * each request that vary ({ path } and/or { body }); `url` gives the origin and the default path.
 * `overallRate` (requests/s over all connections) turns saturation into a fixed-rate run: note that
 * autocannon lets each connection send its share back to back at the start of every second, so
 * arrivals come in bursts, and its coordinated-omission correction assumes a 1 ms interval at any
 * rate, hence `ignoreCoordinatedOmission` for it. `startMeter()` (optional) is called as the
 * measured run starts; its returned function's value is `measured.cpu`.
 */
/** @param {Record<string, any>} options @returns {Promise<any>} */
async function loadRun({ url, method = 'GET', headers = {}, connections, durationSec, warmupSec = 0, nextRequest, overallRate, startMeter, timeoutSec = 10 }) {
  assertLoopback(url);
  const target = new URL(url);
  const requests = [
    {
      method,
      path: target.pathname + target.search,
      headers,
      setupRequest(req) {
        return { ...req, ...nextRequest() };
      },
    },
  ];
  const base = {
    url: target.origin,
    connections,
    pipelining: 1,
    timeout: timeoutSec,
    requests,
    ...(overallRate ? { overallRate, ignoreCoordinatedOmission: true } : {}),
  };
  return warmupThenMeasure({ base, warmupSec, durationSec, startMeter });
}

module.exports = { loadRun };
