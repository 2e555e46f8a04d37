// Load generation on loopback: saturating runs through autocannon's programmatic API, and a paced
// sender for latency at a fixed arrival rate. Both build a fresh body for every request.
'use strict';
const http = require('node:http');
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
    instance.on('reqError', (err) => { firstError ??= err && err.message; });
  });
}

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
 * A warm-up run (discarded but checked) then the measured run, with the same connections.
 * `nextBody()` returns { body, meta } for each request; `onResponse(status, meta, atMs)` is called for
 * each response of the measured run (pipelining stays 1 so a client's context is that request's).
 * `startMeter()` (optional) is called as the measured run starts; what its returned function gives is `measured.cpu`.
 */
async function saturate({ url, method = 'POST', headers = {}, connections, durationSec, warmupSec, nextBody, onResponse, startMeter, timeoutSec = 10 }) {
  assertLoopback(url);
  const target = new URL(url);
  let measuring = false;
  const requests = [{
    method,
    path: target.pathname + target.search,
    headers,
    setupRequest(req, context) {
      const { body, meta } = nextBody();
      context.meta = meta;
      return { ...req, body };
    },
    onResponse(status, _body, context) {
      if (measuring && onResponse) onResponse(status, context.meta, Date.now());
    },
  }];
  const base = { url: target.origin, connections, pipelining: 1, timeout: timeoutSec, requests };
  let warmup = null;
  if (warmupSec > 0) warmup = summarizeAutocannon(await autocannonRun({ ...base, duration: warmupSec }));
  measuring = true;
  const stopMeter = startMeter ? startMeter() : null;
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const measured = summarizeAutocannon(await autocannonRun({ ...base, duration: durationSec }));
  // On the monotonic clock V8 stamps CPU profile samples with, to cut a child's profile to this run.
  measured.window = { startUs, endUs: Number(process.hrtime.bigint() / 1000n) };
  measuring = false;
  if (stopMeter) measured.cpu = stopMeter();
  return { warmup, measured };
}

/**
 * Sends `count` requests at `ratePerSec` (fixed arrival times, not waiting for answers), over a small
 * keep-alive pool. Resolves one record per request: { meta, sentAt, doneAt, status, error }.
 */
async function paced({ url, method = 'POST', headers = {}, count, ratePerSec, nextBody, timeoutMs = 10_000 }) {
  assertLoopback(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const intervalMs = 1000 / ratePerSec;
  const started = performance.now();
  const pending = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const due = started + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const { body, meta } = nextBody();
      pending.push(sendOne({ url, method, headers, body, agent, timeoutMs }).then((r) => ({ meta, ...r })));
    }
    return await Promise.all(pending);
  } finally {
    agent.destroy();
  }
}

function sendOne({ url, method, headers, body, agent, timeoutMs }) {
  return new Promise((resolve) => {
    const sentAt = Date.now();
    const t0 = performance.now();
    const req = http.request(url, { method, agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ sentAt, doneAt: Date.now(), latencyMs: performance.now() - t0, status: res.statusCode }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ sentAt, doneAt: Date.now(), latencyMs: performance.now() - t0, status: 0, error: err.message }));
    req.end(body);
  });
}

module.exports = { saturate, paced, assertLoopback };
