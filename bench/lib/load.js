// Load generation on loopback: saturating runs through autocannon's programmatic API, and a paced
// sender for latency at a fixed arrival rate. Both build a fresh body for every request.
'use strict';
const { assertLoopback, warmupThenMeasure } = require('./autocannon-run.js');
const { openLoop } = require('./open-loop.js');

/**
 * A warm-up run (discarded but checked) then the measured run, with the same connections.
 * `nextBody()` returns { body, meta, headers? } for each request (headers: that request's own, over `headers`); `onResponse(status, meta, atMs)` is called for
 * each response of the measured run (pipelining stays 1 so a client's context is that request's).
 * `startMeter()` (optional) is called as the measured run starts; what its returned function gives is `measured.cpu`.
 */
/** @param {Record<string, any>} options @returns {Promise<any>} */
async function saturate({ url, method = 'POST', headers = {}, connections, durationSec, warmupSec, nextBody, onResponse, startMeter, timeoutSec = 10 }) {
  assertLoopback(url);
  const target = new URL(url);
  let measuring = false;
  const requests = [
    {
      method,
      path: target.pathname + target.search,
      headers,
      setupRequest(req, context) {
        const { body, meta, headers: own } = nextBody();
        context.meta = meta;
        return own ? { ...req, body, headers: { ...req.headers, ...own } } : { ...req, body };
      },
      onResponse(status, _body, context) {
        if (measuring && onResponse) onResponse(status, context.meta, Date.now());
      },
    },
  ];
  const base = { url: target.origin, connections, pipelining: 1, timeout: timeoutSec, requests };
  return warmupThenMeasure({
    base,
    warmupSec,
    durationSec,
    startMeter,
    onMeasuring: (on) => {
      measuring = on;
    },
  });
}

/**
 * Sends `count` requests at `ratePerSec` (fixed arrival times, not waiting for answers), over a small
 * keep-alive pool. Resolves one record per request: { meta, sentAt, doneAt, status, error }.
 */
function paced({ url, method = 'POST', headers = {}, count, ratePerSec, nextBody, timeoutMs = 10_000 }) {
  return openLoop({ url, method, headers, count, ratePerSec, nextBody, maxSockets: 16, timeoutMs });
}

module.exports = { saturate, paced, assertLoopback };
