// Bytes of Redis memory per raw event, on its own: bench/lib/raw-bytes.js on a private
// redis-server, the gateway's store beside the layout it replaced. bench:events reports the same
// object as its `rawBytes`; this suite is for when only that figure is wanted (the capacity model
// takes events.json's `rawBytes` when present, else bench/figures/raw-bytes.json). Beside it, the
// bytes of one event's Idempotency-Key (claimed, then "done" for 24 h) through the gateway's
// idempotency store, measured the same way: the model's other share of a Redis node.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { randomUUID, createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Redis } = require('ioredis');
const { freePort, sleep } = require('./lib/processes.js');
const { measureRawBytes } = require('./lib/raw-bytes.js');
const { writeResult } = require('./lib/results.js');
const suite = require('./lib/suite.js');

const description = 'bytes of Redis memory per raw event (INFO memory delta and MEMORY USAGE), the streams layout beside the replaced one';

const NUMERIC = { events: [5000, 100, 1_000_000] };

const help = `Usage: npm run bench:raw-bytes [-- options]
       node scripts/bench.js raw-bytes [options]

${description}.
Builds the gateway (its store is measured from dist/), then writes --events typical events (a name,
an email, three properties, each with its rate-limit window) to a private redis-server, once with the
gateway's raw-event store and once with the key-per-event layout it replaced; then as many
Idempotency-Keys claimed and completed through the gateway's idempotency store.
Writes bench/results/raw-bytes-<timestamp>.json, and bench/figures/raw-bytes.json with the defaults.

Options:
  --events <n>     events per layout (default 5000)
  --skip-build     do not build first
  --help           this text`;

const { progress, out } = suite.suiteOutput('raw-bytes');

const usedMemory = async (redis) => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))[1]);

/** `keys` Idempotency-Keys (client UUIDs) claimed and completed through the gateway's store, on a private redis-server. */
async function measureIdempotencyBytes({ keys, accounts = 10 }) {
  const { createIdempotencyStore } = require(path.join(__dirname, '..', 'services', 'gateway', 'dist', 'data', 'idempotency-store.js'));
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-idem-bytes-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    for (let i = 0; ; i++) {
      try {
        await redis.connect();
        break;
      } catch (err) {
        if (i > 50) throw new Error(`redis-server for the idempotency bytes did not start: ${err.message}`, { cause: err });
        await sleep(100);
      }
    }
    const failures = [];
    const store = createIdempotencyStore({ redis, pendingTtlMs: 10_000, onFailure: (op, err) => failures.push(`${op}: ${err.message}`) });
    const accountIds = Array.from({ length: accounts }, () => randomUUID());
    await store.claim(randomUUID(), randomUUID(), 'warm');
    await redis.flushall();
    const before = await usedMemory(redis);
    for (let i = 0; i < keys; i++) {
      const accountId = accountIds[i % accounts];
      const key = randomUUID();
      const fingerprint = createHash('sha256').update(String(i)).digest('base64url');
      await store.claim(accountId, key, fingerprint);
      await store.complete(accountId, key, fingerprint);
    }
    if (failures.length) throw new Error(`idempotency bytes: Redis failures: ${failures.slice(0, 3).join('; ')}`);
    const after = await usedMemory(redis);
    let cursor = '0';
    let usage = 0;
    do {
      const [next, found] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const k of found) usage += Number(await redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
    } while (cursor !== '0');
    return {
      keys,
      key: 'a client UUID, "done" with the event fingerprint for 24 h',
      infoDeltaBytesPerKey: Math.round((after - before) / keys),
      memoryUsageBytesPerKey: Math.round(usage / keys),
    };
  } finally {
    redis.disconnect();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function run(argv) {
  let opts;
  try {
    const { values, numbers } = suite.parseSuiteArgs(argv, { numeric: NUMERIC, options: { 'skip-build': { type: 'boolean', default: false } } });
    opts = { build: !values['skip-build'], events: Number(numbers.events) };
  } catch (err) {
    if (!(err instanceof suite.UsageError)) throw err;
    console.error(`bench raw-bytes: ${err.message} (see --help)`);
    return 2;
  }
  if (opts.build) {
    progress('building (npx turbo run build --filter=@glimpse/gateway)');
    const res = spawnSync('npx', ['turbo', 'run', 'build', '--filter=@glimpse/gateway', '--output-logs=errors-only'], {
      cwd: path.join(__dirname, '..'),
      stdio: ['ignore', 2, 2],
    });
    if (res.status !== 0) throw new Error(`build failed (exit ${res.status ?? res.signal})`);
  }
  const startedAt = new Date();
  progress(`measuring ${opts.events} events per layout`);
  const rawBytes = await measureRawBytes({ events: opts.events });
  const idempotency = await measureIdempotencyBytes({ keys: opts.events });
  const summary = { suite: 'raw-bytes', date: startedAt.toISOString(), valid: true, rawBytes, idempotency };
  const file = writeResult('raw-bytes', summary, startedAt, { latest: opts.events === NUMERIC.events[0] });
  out(`streams  ${rawBytes.streams.infoDeltaBytesPerEvent} B/event (INFO memory delta), ${rawBytes.streams.memoryUsageBytesPerEvent} B/event (MEMORY USAGE)`);
  out(`replaced ${rawBytes.replaced.infoDeltaBytesPerEvent} B/event (INFO memory delta), ${rawBytes.replaced.memoryUsageBytesPerEvent} B/event (MEMORY USAGE)`);
  out(`target   <= ${rawBytes.targetBytesPerEvent} B/event: ${rawBytes.met ? 'MET' : 'MISSED'}`);
  out(`idem key ${idempotency.infoDeltaBytesPerKey} B/key (INFO memory delta), ${idempotency.memoryUsageBytesPerKey} B/key (MEMORY USAGE)`);
  out(`results  ${path.relative(process.cwd(), file)}`);
  return 0;
}

module.exports = { description, help, run };
