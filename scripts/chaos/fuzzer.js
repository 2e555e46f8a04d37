#!/usr/bin/env node
// A seeded HTTP fuzzer over every public path of the gateway: bodies, headers, methods, paths
// and encodings, sent as raw bytes over plain sockets (one connection per request) so that a
// connection closed without an answer is seen as such. A module (fuzz) and a CLI; the chaos
// suite and an integration test reuse it.
'use strict';
const net = require('node:net');
const { parseArgs } = require('node:util');
const { buildCase } = require('./fuzzer-cases.js');

const HELP = `Usage: node scripts/chaos/fuzzer.js --url URL [options]

Sends --count seeded, malformed and odd requests to every public path of a running gateway and
prints the statuses it got and every failure: a 5xx, or a connection closed (or left hanging)
without an answer. Exits 1 when there was a failure.

  --url URL             the gateway, e.g. http://127.0.0.1:8080 (loopback only)
  --count N             requests to send (default 20000)
  --seed N              the seed; the same seed sends the same requests (default 1)
  --concurrency N       requests in flight at once (default 16)
  --event-token TOKEN   a valid event token (gle_…), so bodies get past authentication
  --api-key KEY         a valid API key with all scopes (glk_…)
  --visitor ID          a visitor id (24 hex) of that account, for the details lookup
  --timeout-ms N        how long to wait for an answer (default 15000)
  --json                print one JSON object instead of the table
  --help                this text`;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The final (non-1xx) status of a response whose head has fully arrived, or null. */
function finalStatus(text) {
  for (const m of text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n/g)) {
    const status = Number(m[1]);
    if (status >= 200 && text.indexOf('\r\n\r\n', m.index) !== -1) return status;
  }
  return null;
}

/**
 * Sends raw bytes on a new connection (never half-closing it: Node aborts a request whose client
 * half-closes) and reads until the head of a final answer has come, or the server closes.
 */
function exchange({ host, port }, bytes, timeoutMs) {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    const socket = net.connect({ host, port });
    const finish = (outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = finalStatus(text);
      resolve({ status, outcome: status !== null ? 'answered' : outcome, head: text.slice(0, 400) });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (finalStatus(text) !== null) finish('answered');
    });
    socket.on('end', () => finish('closed_without_answer'));
    socket.on('close', () => finish('closed_without_answer'));
    socket.on('error', (err) => finish(text ? 'closed_without_answer' : `error_${/** @type {NodeJS.ErrnoException} */ (err).code ?? 'unknown'}`));
  });
}

/** The request as a short printable line, for a failure report. */
function preview(bytes) {
  const text = bytes.subarray(0, 240).toString('latin1');
  return JSON.stringify(text).slice(1, -1) + (bytes.length > 240 ? '…' : '');
}

/**
 * Runs the fuzzer. Returns { sent, statuses: {status|outcome: count}, failures: [...], causes:
 * {label + status: count} } — a failure is a 5xx or no answer.
 * @param {{ url: string, count?: number, seed?: number, concurrency?: number, eventToken?: string, apiKey?: string, visitor?: string, timeoutMs?: number, onProgress?: (done: number, total: number) => void }} options
 */
async function fuzz({ url, count = 20_000, seed = 1, concurrency = 16, eventToken, apiKey, visitor, timeoutMs = 15_000, onProgress }) {
  const { hostname, port } = new URL(url);
  if (!LOOPBACK.has(hostname)) throw new Error(`the fuzzer only targets this machine (loopback), not ${hostname}`);
  const target = { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 80) };
  const ctx = { host: `${hostname}:${target.port}`, creds: { eventToken, apiKey }, ids: { visitor } };
  const statuses = {};
  const failures = [];
  const causes = {};
  let next = 0;
  let finished = 0;

  async function worker() {
    while (next < count) {
      const index = next++;
      const { label, bytes } = buildCase(seed, index, ctx);
      const res = await exchange(target, bytes, timeoutMs);
      const key = res.status ?? res.outcome;
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (res.status === null || res.status >= 500) {
        // A 503 that says when to come back is a dependency refusing in time, not a crash: told apart.
        const retryAfter = res.status === 503 && /\r\nretry-after:/i.test(res.head.split('\r\n\r\n')[0] + '\r\n');
        const cause = `${label} → ${key}${retryAfter ? ' (Retry-After)' : ''}`;
        causes[cause] = (causes[cause] ?? 0) + 1;
        if (failures.length < 500)
          failures.push({ index, label, result: key, request: preview(bytes), response: res.head.split('\r\n\r\n')[1]?.slice(0, 200) ?? '' });
      }
      finished++;
      if (onProgress && finished % 1000 === 0) onProgress(finished, count);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  return { sent: finished, seed, statuses, failures, causes };
}

function printTable(result) {
  const lines = [`sent ${result.sent} requests (seed ${result.seed})`, '', 'status   count'];
  for (const [status, n] of Object.entries(result.statuses).sort()) lines.push(`${status.padEnd(8)} ${n}`);
  const failed = result.failures.length;
  lines.push(
    '',
    failed === 0
      ? 'failures: none (no 5xx, no connection closed without an answer)'
      : `failures: ${Object.values(result.causes).reduce((a, b) => a + b, 0)} (${Object.keys(result.causes).length} distinct)`,
  );
  for (const [cause, n] of Object.entries(result.causes).sort((a, b) => b[1] - a[1])) lines.push(`  ${String(n).padStart(6)}  ${cause}`);
  for (const f of result.failures.slice(0, 20)) lines.push(`  #${f.index} ${f.result}: ${f.request}`);
  return lines.join('\n');
}

async function main(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      count: { type: 'string', default: '20000' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '16' },
      'event-token': { type: 'string' },
      'api-key': { type: 'string' },
      visitor: { type: 'string' },
      'timeout-ms': { type: 'string', default: '15000' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (!values.url) throw new Error('--url is required (see --help)');
  const number = (name) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got "${values[name]}"`);
    return n;
  };
  const t0 = Date.now();
  const result = await fuzz({
    url: values.url,
    count: number('count'),
    seed: number('seed'),
    concurrency: Math.max(1, number('concurrency')),
    eventToken: values['event-token'],
    apiKey: values['api-key'],
    visitor: values.visitor,
    timeoutMs: number('timeout-ms'),
    onProgress: values.json ? undefined : (done, total) => process.stderr.write(`fuzzer: ${done}/${total}\n`),
  });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  if (values.json) console.log(JSON.stringify({ ...result, seconds: Number(seconds) }));
  else console.log(`${printTable(result)}\n\n${seconds} s`);
  return result.failures.length === 0 ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`fuzzer: ${err.message}`);
      process.exit(2);
    },
  );
}

module.exports = { fuzz, printTable };
