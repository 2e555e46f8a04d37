// Requests at a fixed arrival rate (open loop: a slow answer never delays the next request), for
// latency at a given load. load.js's paced() is this with a 16-socket pool; the default here has
// enough sockets that the client never caps how many requests are in flight: with a 16-socket pool,
// 16 answers of 30 ms would already hold 500 req/s back in the client, and the run would measure
// the pool instead of the server.
'use strict';
const http = require('node:http');
const { assertLoopback } = require('./autocannon-run.js');

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

/**
 * Sends `count` requests at `ratePerSec`, evenly spaced, over a keep-alive pool of up to
 * `maxSockets`. `nextBody()` returns { body, meta } and optionally `path` (this request's path on
 * `url`'s origin). Resolves one record per request:
 * { meta, sentAt, doneAt, latencyMs, status, error }, latency from the send to the last byte.
 */
async function openLoop({ url, method = 'POST', headers = {}, count, ratePerSec, nextBody, maxSockets = 256, timeoutMs = 10_000 }) {
  assertLoopback(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const intervalMs = 1000 / ratePerSec;
  const started = performance.now();
  const pending = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const wait = started + i * intervalMs - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const { body, meta, path } = nextBody();
      const target = path ? new URL(path, url).toString() : url;
      pending.push(sendOne({ url: target, method, headers, body, agent, timeoutMs }).then((r) => ({ meta, ...r })));
    }
    return await Promise.all(pending);
  } finally {
    agent.destroy();
  }
}

module.exports = { openLoop };
