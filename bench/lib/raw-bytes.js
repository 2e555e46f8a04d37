// Bytes of Redis memory per raw event, measured on a private redis-server (nothing else writes to
// it): `INFO memory` used_memory before and after writing N typical events (a name, an email and
// three properties) through the gateway's own store, and the sum of `MEMORY USAGE … SAMPLES 0`
// over the keys they made. Each event also takes its account's rate-limit window, as POST /events
// does, so the index entry and the limits are in the figure. The layout the store replaced (one
// key per event plus a sorted-set index) is measured the same way in the same run, for the ratio.
'use strict';
const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Redis } = require('ioredis');
const { freePort } = require('./processes');

const GATEWAY_DIST = path.join(__dirname, '..', '..', 'services', 'gateway', 'dist', 'data');

async function startRedis() {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-raw-bytes-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  let redis;
  for (let i = 0; ; i++) {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      redis = client;
      break;
    } catch (err) {
      client.disconnect();
      if (i > 50) throw new Error(`redis-server for the raw-bytes bench did not start: ${err.message}`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    redis,
    async stop() {
      redis.disconnect();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function typicalEvent(accountId, i, receivedAtMs) {
  const first = ['jane', 'john', 'maria', 'wei', 'amir', 'sofia'][i % 6];
  return {
    eventId: randomUUID(),
    accountId,
    event: ['signed_up', 'trial_started', 'invoice_paid'][i % 3],
    email: `${first}.${100000 + i}@example-corp.com`,
    properties: { plan: ['free', 'pro', 'team'][i % 3], seats: (i % 20) + 1, source: 'newsletter' },
    receivedAt: new Date(receivedAtMs).toISOString(),
  };
}

async function usedMemory(redis) {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)[1]);
}

async function sumMemoryUsage(redis) {
  let cursor = '0';
  let total = 0;
  let keys = 0;
  do {
    const [next, found] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of found) {
      total += Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      keys += 1;
    }
  } while (cursor !== '0');
  return { total, keys };
}

/** The replaced layout: SET glimpse:event:<account>:<id> <JSON> EX 86400 and ZADD glimpse:recent:<account>. */
async function saveOldLayout(redis, event) {
  await redis
    .pipeline()
    .set(`glimpse:event:${event.accountId}:${event.eventId}`, JSON.stringify(event), 'EX', 86_400)
    .zadd(`glimpse:recent:${event.accountId}`, Date.parse(event.receivedAt), event.eventId)
    .exec();
}

async function measure(layout, { events, accounts }) {
  const { createRawEventStore } = require(path.join(GATEWAY_DIST, 'raw-event-store.js'));
  const { createRateLimiter } = require(path.join(GATEWAY_DIST, 'rate-limiter.js'));
  const server = await startRedis();
  const { redis } = server;
  try {
    const failures = [];
    const store = createRawEventStore({ redis, onFailure: (op, err) => failures.push(`${op}: ${err.message}`) });
    const limiter = createRateLimiter({
      redis,
      name: 'events',
      subjectKind: 'a',
      perSecond: 1_000_000,
      onFailure: (err) => failures.push(`limit: ${err.message}`),
    });
    const accountIds = Array.from({ length: accounts }, () => randomUUID());
    // Warm the scripts, then measure from a settled baseline.
    await store.save(typicalEvent(randomUUID(), 0, Date.now()));
    await redis.flushall();
    const before = await usedMemory(redis);
    const start = Date.now() - events * 10; // spread over the last minutes, as a stream of events would be
    let payload = 0;
    for (let i = 0; i < events; i++) {
      const event = typicalEvent(accountIds[i % accounts], i, start + i * 10);
      payload += JSON.stringify(event).length;
      await limiter.take(event.accountId);
      if (layout === 'streams') await store.save(event);
      else await saveOldLayout(redis, event);
    }
    if (failures.length > 0) throw new Error(`raw-bytes bench: Redis failures: ${failures.slice(0, 3).join('; ')}`);
    const after = await usedMemory(redis);
    const usage = await sumMemoryUsage(redis);
    return {
      infoDeltaBytesPerEvent: Math.round((after - before) / events),
      memoryUsageBytesPerEvent: Math.round(usage.total / events),
      keys: usage.keys,
      jsonBytesPerEvent: Math.round(payload / events),
    };
  } finally {
    await server.stop();
  }
}

/**
 * Both layouts, side by side; the store's is the one the capacity model takes. It always measures
 * on a redis-server of its own (`redisUrl` is accepted and not used: a shared Redis's memory moves
 * with everything else written to it).
 * @param {{ events?: number, accounts?: number, redisUrl?: string }} [options]
 */
async function measureRawBytes({ events = 5000, accounts = 10 } = {}) {
  const streams = await measure('streams', { events, accounts });
  const replaced = await measure('keys', { events, accounts });
  return {
    events,
    accounts,
    event: 'a name, an email and three properties (plan, seats, source), with its rate-limit window',
    streams,
    replaced,
    ratio: Number((streams.infoDeltaBytesPerEvent / replaced.infoDeltaBytesPerEvent).toFixed(3)),
    targetBytesPerEvent: 300,
    met: streams.infoDeltaBytesPerEvent <= 300 && streams.memoryUsageBytesPerEvent <= 300,
  };
}

module.exports = { measureRawBytes };

if (require.main === module) {
  measureRawBytes({ events: Number(process.argv[2]) || 5000 }).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
