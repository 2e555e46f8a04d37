// The exact checks of the chaos suite, from outside the services: what Kafka holds, what Postgres
// holds, what the services logged, and what the brokers and Redis are configured to keep.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { kafkaClient } = require('../infra/kafka-ctl');
const { TOPICS } = require('../infra/topics');

const DAY_MS = 86_400_000;
const INBOUND = 'events.inbound';
const DLQ = 'events.inbound.dlq';
const COLLECTED = 'visitors.collected';
const COLLECTED_DLQ = 'visitors.collected.dlq';
// Every topic whose messages name a person: gone within 24 h (the effects and identified visitors too,
// and the webhooks service's dead-letter topic, which holds effects and identifications).
const RAW = [INBOUND, DLQ, COLLECTED, COLLECTED_DLQ, 'playbook.effects', 'visitors.identified', 'webhooks.dlq'];

/** Every record of `topic` up to its current end: [{ partition, offset, key, value }]. */
async function readTopic(brokers, topic) {
  const kafka = kafkaClient(brokers);
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  await admin.disconnect();
  const records = [];
  const pending = new Set([...ends].filter(([, high]) => high > 0).map(([p]) => p));
  if (pending.size === 0) return records;
  const consumer = kafka.consumer({ groupId: `glimpse-chaos-reader-${process.pid}-${Date.now()}`, maxBytes: 8 * 1024 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const high = ends.get(batch.partition);
          for (const m of batch.messages) {
            const offset = Number(m.offset);
            if (offset >= high) break;
            records.push({ partition: batch.partition, offset, key: m.key?.toString() ?? null, value: m.value?.toString() ?? '' });
            if (offset === high - 1) pending.delete(batch.partition);
          }
          if (pending.size === 0) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** How far the consumer group is behind the end of `topic` (events.inbound), summed over partitions. */
async function groupLag(brokers, groupId, topic = INBOUND) {
  const admin = kafkaClient(brokers, { retry: { retries: 1 } }).admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return ends.reduce((lag, p) => lag + Math.max(0, Number(p.high) - Math.max(0, at.get(p.partition) ?? 0)), 0);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * The rule that one event stops and starts (docs/api.md#posting-an-event, rule 2), written again here
 * from the interface (not imported from the service under test): an
 * event stops the person's active enrollment in every playbook that exits on its name, and starts
 * one in every playbook it triggers — a playbook that both exits and triggers on it restarts, one
 * already active and only triggered stays as it is.
 */
function replayPerson(playbooks, email, events) {
  const enrollments = [];
  const active = new Map();
  for (const { eventId, event } of events) {
    const exits = playbooks.filter((p) => p.exits.includes(event)).map((p) => p.id);
    const triggers = playbooks.filter((p) => p.triggers.includes(event)).map((p) => p.id);
    for (const id of exits) {
      const e = active.get(id);
      if (!e) continue;
      e.status = 'stopped';
      e.stopEventId = eventId;
      active.delete(id);
    }
    for (const id of triggers) {
      if (active.has(id)) continue;
      const e = { playbookId: id, email, status: 'active', startEventId: eventId, stopEventId: null };
      enrollments.push(e);
      active.set(id, e);
    }
  }
  return enrollments;
}

const enrollmentKey = (e) => `${e.email} ${e.playbookId} ${e.status} start=${e.startEventId} stop=${e.stopEventId ?? '-'}`;

/** Multiset difference: what `a` has more of than `b`. */
function minus(a, b) {
  const counts = new Map();
  for (const k of b) counts.set(k, (counts.get(k) ?? 0) + 1);
  const out = [];
  for (const k of a) {
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else out.push(k);
  }
  return out;
}

/**
 * The delivery checks. `load`: the event load (what was sent and acknowledged, by seq). `pg`: a
 * connected pg client. `skipEmails`: people whose events preceded the playbooks (catalog priming).
 */
async function deliveryChecks({ brokers, pg, accountId, playbooks, load, skipEmails }) {
  const results = [];
  const check = (name, ok, detail) => results.push({ name, ok, detail });
  const inbound = (await readTopic(brokers, INBOUND)).map((r) => ({ ...r, event: JSON.parse(r.value) }));
  const ours = inbound.filter((r) => r.event.accountId === accountId);
  // First occurrence of each event id, in partition order (one person's events share a partition).
  const firstById = new Map();
  const idsBySeq = new Map();
  let copies = 0;
  for (const r of ours) {
    const { eventId, properties } = r.event;
    if (firstById.has(eventId)) {
      copies++;
      continue;
    }
    firstById.set(eventId, r);
    const seq = properties?.seq;
    if (seq !== undefined) idsBySeq.set(seq, [...(idsBySeq.get(seq) ?? []), eventId]);
  }
  const acked = [...load.events.values()].filter((e) => e.acked);
  const missing = acked.filter((e) => !idsBySeq.has(e.seq));
  check(
    'every event answered 200 is in Kafka (acks=all, read back from the cluster)',
    missing.length === 0,
    `${acked.length} answered 200, ${missing.length} not in events.inbound${
      missing.length
        ? ` (seq ${missing
            .slice(0, 5)
            .map((e) => e.seq)
            .join(', ')}…)`
        : ''
    }`,
  );
  const split = [...idsBySeq].filter(([, ids]) => ids.length > 1);
  check(
    'one event id per event, however often it was retried',
    split.length === 0,
    `${idsBySeq.size} events in Kafka, ${copies} repeated copies (same id), ${split.length} under two ids`,
  );
  const landedUnacked = [...idsBySeq.keys()].filter((seq) => !load.events.get(seq)?.acked).length;

  // Per person, the acknowledged events must be in Kafka in the order they were acknowledged.
  const kafkaOrder = new Map();
  for (const r of firstById.values()) {
    const list = kafkaOrder.get(r.event.email) ?? [];
    list.push({ eventId: r.event.eventId, event: r.event.event, seq: r.event.properties?.seq });
    kafkaOrder.set(r.event.email, list);
  }
  let outOfOrder = 0;
  for (const [email, seqs] of load.byPerson) {
    const ackedSeqs = new Set(seqs.filter((s) => load.events.get(s).acked));
    const inKafka = (kafkaOrder.get(email) ?? []).filter((e) => ackedSeqs.has(e.seq)).map((e) => e.seq);
    if (inKafka.some((s, i) => i > 0 && s < inKafka[i - 1])) outOfOrder++;
  }
  check("each person's acknowledged events are in Kafka in the order sent", outOfOrder === 0, `${load.byPerson.size} people, ${outOfOrder} out of order`);

  // Effects exactly once: the enrollments in Postgres are those of an in-order replay of Kafka.
  const expected = [];
  for (const [email, events] of kafkaOrder) if (!skipEmails.has(email)) expected.push(...replayPerson(playbooks, email, events));
  const { rows } = await pg.query(
    'SELECT playbook_id::text AS "playbookId", email, status, start_event_id::text AS "startEventId", stop_event_id::text AS "stopEventId" FROM enrollments WHERE account_id = $1::uuid',
    [accountId],
  );
  const actual = rows.filter((r) => !skipEmails.has(r.email));
  const want = expected.map(enrollmentKey);
  const have = actual.map(enrollmentKey);
  const lost = minus(want, have);
  const extra = minus(have, want);
  check(
    "effects exactly once: enrollments equal an in-order replay of each person's events",
    lost.length === 0 && extra.length === 0,
    `${want.length} expected, ${have.length} in Postgres, ${lost.length} missing, ${extra.length} extra${lost.length ? `; missing e.g. ${lost[0]}` : ''}${extra.length ? `; extra e.g. ${extra[0]}` : ''}`,
  );

  const distinct = firstById.size;
  const { rows: processedRows } = await pg.query('SELECT event_id::text AS id FROM processed_events WHERE account_id = $1::uuid', [accountId]);
  const processedIds = new Set(processedRows.map((r) => r.id));
  const unapplied = [...firstById.values()].filter((r) => !processedIds.has(r.event.eventId));
  const describe = (r) =>
    `${r.event.eventId} ${r.event.event} seq ${r.event.properties?.seq ?? '-'} (events.inbound/${r.partition}@${r.offset}, received ${r.event.receivedAt}${load.events.get(r.event.properties?.seq)?.acked ? ', answered 200' : ''})`;
  check(
    'every event in Kafka applied once (processed_events)',
    unapplied.length === 0 && processedRows.length === distinct,
    `${distinct} distinct events in Kafka, ${processedRows.length} recorded as processed${unapplied.length ? `; not applied: ${unapplied.slice(0, 3).map(describe).join('; ')}` : ''}`,
  );
  const byName = new Map();
  for (const r of firstById.values()) byName.set(r.event.event, (byName.get(r.event.event) ?? 0) + 1);
  const { rows: catalog } = await pg.query('SELECT name, count::int AS n FROM event_names WHERE account_id = $1::uuid', [accountId]);
  const wrongCounts = [...byName].filter(([name, n]) => catalog.find((c) => c.name === name)?.n !== n);
  check(
    'catalog counts each event once',
    wrongCounts.length === 0,
    wrongCounts.length
      ? wrongCounts
          .slice(0, 3)
          .map(([name, n]) => `${name}: ${n} in Kafka, ${catalog.find((c) => c.name === name)?.n ?? 'none'} in catalog`)
          .join('; ')
      : `${byName.size} names`,
  );

  const dlq = await readTopic(brokers, DLQ);
  const ourDead = dlq.filter((r) => r.value.includes(accountId));
  check('no valid event dead-lettered', ourDead.length === 0, `${dlq.length} on ${DLQ}, ${ourDead.length} of the load's`);
  return { results, figures: { inKafka: distinct, copies, landedUnacked, enrollments: have.length }, inbound, idsBySeq };
}

/** Counts, per log file, the planted personal data and credentials found. */
function logChecks({ logDir, needles }) {
  const files = fs.readdirSync(logDir).filter((f) => f.endsWith('.log'));
  const escaped = needles.filter((n) => n.value).map((n) => n.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(escaped.join('|'), 'gi');
  const found = [];
  let bytes = 0;
  for (const f of files) {
    const text = fs.readFileSync(path.join(logDir, f), 'utf8');
    bytes += text.length;
    for (const m of text.matchAll(re)) {
      const needle = needles.find((n) => n.value.toLowerCase() === m[0].toLowerCase());
      const line = text.slice(text.lastIndexOf('\n', m.index) + 1, text.indexOf('\n', m.index)).slice(0, 300);
      found.push({ file: f, what: needle?.label ?? '?', line });
      if (found.length > 50) break;
    }
  }
  return {
    name: "no email, phone, property value or credential in any service's logs",
    ok: found.length === 0,
    detail: `${files.length} log files, ${(bytes / 1e6).toFixed(1)} MB, ${needles.length} planted values: ${found.length === 0 ? 'none found' : `${found.length} found, e.g. ${found[0].what} in ${found[0].file}: ${found[0].line}`}`,
    found,
  };
}

/** Raw events gone within 24 h by configuration: topic and broker configs as every broker reports them. */
async function kafkaPurgeCheck(brokers, nodeIds) {
  const { ConfigResourceTypes } = require('kafkajs');
  const problems = [];
  let worst = 0;
  for (const [i, broker] of brokers.entries()) {
    const admin = kafkaClient([broker], { retry: { retries: 2 } }).admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          ...RAW.map((name) => ({
            type: ConfigResourceTypes.TOPIC,
            name,
            configNames: ['retention.ms', 'segment.ms', 'file.delete.delay.ms', 'message.timestamp.type', 'min.insync.replicas'],
          })),
          { type: ConfigResourceTypes.BROKER, name: String(nodeIds[i]), configNames: ['log.retention.check.interval.ms'] },
        ],
      });
      const value = (name, key) => resources.find((r) => r.resourceName === name)?.configEntries.find((e) => e.configName === key)?.configValue;
      const check = Number(value(String(nodeIds[i]), 'log.retention.check.interval.ms'));
      for (const t of RAW) {
        const deleteDelay = Number(value(t, 'file.delete.delay.ms'));
        const total = Number(value(t, 'retention.ms')) + Number(value(t, 'segment.ms')) + check + deleteDelay;
        worst = Math.max(worst, total);
        if (!(total <= DAY_MS))
          problems.push(
            `${broker} ${t}: retention ${value(t, 'retention.ms')} + segment ${value(t, 'segment.ms')} + check ${check} + delete delay ${deleteDelay} ms > 24 h`,
          );
        if (value(t, 'message.timestamp.type') !== 'LogAppendTime')
          problems.push(`${broker} ${t}: message.timestamp.type ${value(t, 'message.timestamp.type')} (a producer's clock would decide retention)`);
        if (value(t, 'min.insync.replicas') !== '2') problems.push(`${broker} ${t}: min.insync.replicas ${value(t, 'min.insync.replicas')}`);
      }
    } finally {
      await admin.disconnect().catch(() => {});
    }
  }
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  const { topics } = await admin.fetchTopicMetadata({ topics: TOPICS.map((t) => t.name) });
  await admin.disconnect();
  const thin = topics.flatMap((t) => t.partitions.filter((p) => p.replicas.length !== 3).map((p) => `${t.name}/${p.partitionId}`));
  if (thin.length) problems.push(`partitions without 3 replicas: ${thin.slice(0, 5).join(', ')}`);
  return {
    name: 'raw events and page views leave Kafka within 24 h by configuration (retention + segment.ms + check interval + delete delay), RF 3, min ISR 2',
    ok: problems.length === 0,
    detail: problems.length ? problems.slice(0, 4).join('; ') : `read from all ${brokers.length} brokers: worst case ${(worst / 3_600_000).toFixed(2)} h`,
  };
}

/**
 * Every key on every master of the Redis Cluster expires within 24 h (raw copies, their meta hash,
 * idempotency keys, counters, the cookieless salt): SCAN each master's own keys, PTTL each. Keys are
 * grouped by class: the hash tag and what follows the class name left out.
 */
/** @param {string[]} masters @param {{ password?: string }} [options] */
async function redisPurgeCheck(masters, { password } = {}) {
  const { Redis } = require('ioredis');
  const byClass = new Map();
  const problems = [];
  for (const addr of masters) {
    const i = addr.lastIndexOf(':');
    const redis = new Redis({ host: addr.slice(0, i), port: Number(addr.slice(i + 1)), password, lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
        cursor = next;
        if (keys.length === 0) continue;
        const pipeline = redis.pipeline();
        for (const k of keys) pipeline.pttl(k);
        const ttls = await pipeline.exec();
        keys.forEach((k, j) => {
          const ttl = Number(ttls[j][1]);
          const cls = keyClass(k);
          const c = byClass.get(cls) ?? { keys: 0, maxTtlMs: 0, noTtl: 0 };
          c.keys++;
          if (ttl < 0) c.noTtl++;
          else c.maxTtlMs = Math.max(c.maxTtlMs, ttl);
          byClass.set(cls, c);
        });
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  }
  for (const [cls, c] of byClass) {
    if (c.noTtl > 0) problems.push(`${c.noTtl} ${cls} keys without a TTL`);
    if (c.maxTtlMs > maxTtlMs(cls)) problems.push(`${cls} TTL up to ${(c.maxTtlMs / 3_600_000).toFixed(2)} h`);
  }
  const summary = [...byClass]
    .sort()
    .map(([cls, c]) => `${cls} ${c.keys} (max TTL ${(c.maxTtlMs / 3_600_000).toFixed(2)} h)`)
    .join(', ');
  return {
    name: `every Redis key expires within 24 h (raw streams, idempotency keys, counters; the raw copies' meta hash of counts one bucket later), scanned on all ${masters.length} masters`,
    ok: problems.length === 0 && byClass.size > 0,
    detail: problems.length ? problems.join('; ') : byClass.size ? summary : 'no keys at all (raw events were not stored?)',
  };
}

/**
 * The longest TTL a key class may have: 24 h for everything that holds event data or keys, but the
 * raw copies' meta hash (bytes, counts and drops per ten-minute bucket, no event data), which by
 * design outlives its newest bucket by one bucket (services/gateway/src/data/raw-event-store.ts), and
 * the Idempotency-Key budget (counts and bytes per hour, no key), which counts a key 25 h
 * (services/gateway/src/data/idempotency-store.ts).
 */
const maxTtlMs = (cls) => (cls === 'glimpse:{a}:rawmeta' ? DAY_MS + 600_000 : cls === 'glimpse:{a}:idembudget' ? DAY_MS + 3_600_000 : DAY_MS);

/** `glimpse:{a:<id>}:raw:2912345` -> `glimpse:{a}:raw:<n>`, `…:idem:<key>` -> `glimpse:{a}:idem`, `glimpse:salt:2026-11-25` -> `glimpse:salt`. */
function keyClass(key) {
  const tag = /^([^{]*)\{([a-z]+):[^}]*\}(.*)$/.exec(key);
  if (!tag) return key.split(':').slice(0, 2).join(':');
  const parts = tag[3].split(':').slice(0, 3);
  if (parts[1] === 'idem' || parts[1] === 'lidem') parts.length = 2;
  return `${tag[1]}{${tag[2]}}${parts.map((p) => (/^\d+$/.test(p) ? '<n>' : p)).join(':')}`;
}

/** Sums of the samples of each metric in a Prometheus text answer: { name: total }, and { 'name{labels}': value }. */
function parseMetrics(text) {
  const totals = {};
  for (const line of String(text).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const v = Number(m[3]);
    if (!Number.isFinite(v)) continue;
    totals[m[1]] = (totals[m[1]] ?? 0) + v;
    if (m[2]) totals[m[1] + m[2]] = v;
  }
  return totals;
}

/**
 * Every raw copy the account can read: GET /account/events/recent page after page (200 a page),
 * waiting out 429 and 503 (with Retry-After). Resolves { items, dropped, pages }.
 */
async function readRawCopies({ gateway, apiKey, timeoutMs = 120_000 }) {
  const deadline = Date.now() + timeoutMs;
  const items = [];
  let cursor = null;
  let dropped = 0;
  let pages = 0;
  for (;;) {
    const url = `${gateway}/account/events/recent?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    let status = 0;
    let text;
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(15_000) });
      status = res.status;
      text = await res.text();
    } catch (err) {
      text = err.message;
    }
    if (status === 200) {
      const body = JSON.parse(text);
      pages++;
      items.push(...body.items);
      dropped = Math.max(dropped, Number(body.dropped ?? 0));
      if (!body.nextCursor) return { items, dropped, pages };
      cursor = body.nextCursor;
      continue;
    }
    if (Date.now() > deadline) throw new Error(`GET /account/events/recent: ${status} after ${pages} pages, for ${timeoutMs / 1000} s`);
    if (status !== 429 && status !== 503 && status !== 0) throw new Error(`GET /account/events/recent: ${status} ${text.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * The visitors service's aggregates against a replay, written here from the docs (not imported from
 * the service): what visitors.collected holds for the site, each visitor's page views in Kafka order,
 * a copy of an id counted once; a new session on a new UTM campaign (the load never idles 30 min);
 * first/last seen the first/last page view's receivedAt; last page the last one's path. Every page
 * view answered 200 must be in Kafka, and nothing in the dead-letter topic.
 */
async function visitorsChecks({ brokers, siteId, load, details }) {
  const records = (await readTopic(brokers, COLLECTED)).map((r) => ({ ...r, message: JSON.parse(r.value) }));
  const byVisitor = new Map();
  let copies = 0;
  for (const { message: m } of records) {
    if (m.siteId !== siteId || m.type !== 'pageview') continue;
    const v = byVisitor.get(m.visitorId) ?? { ids: new Set(), views: [] };
    byVisitor.set(m.visitorId, v);
    if (v.ids.has(m.id)) {
      copies++;
      continue;
    }
    v.ids.add(m.id);
    v.views.push(m);
  }
  const lost = [];
  for (const [vid, ids] of load.acked) for (const id of ids) if (!byVisitor.get(vid)?.ids.has(id)) lost.push(`${vid}/${id}`);
  const mismatches = [];
  const scoreMismatches = [];
  let compared = 0;
  const now = Date.now();
  for (const [vid, v] of byVisitor) {
    let sessions = 0;
    let campaign = null;
    // The intent score with the default weights (a page view 1 point, a session 3; the site has no
    // weighted rule and the load sends no engagement): per UTC day and kind, the units summed at the
    // day's last time, each decayed by the 7-day half-life, at most 100.
    const units = new Map();
    const add = (kind, at) => {
      const key = `${kind}@${new Date(at).toISOString().slice(0, 10)}`;
      const u = units.get(key) ?? { weight: kind === 'session' ? 3 : 1, n: 0, at: 0 };
      units.set(key, { ...u, n: u.n + 1, at: Math.max(u.at, at) });
    };
    for (const m of v.views) {
      const c = m.utm?.campaign ?? null;
      const at = Date.parse(m.receivedAt);
      if (sessions === 0 || (c !== null && c !== campaign)) {
        sessions++;
        campaign = c;
        add('session', at);
      }
      add('page_view', at);
    }
    const lastAt = Date.parse(v.views.at(-1).receivedAt);
    const decay = (from, to) => 2 ** (-Math.max(0, to - from) / (7 * 86_400_000));
    const raw = [...units.values()].reduce((sum, u) => sum + u.weight * u.n * decay(u.at, lastAt), 0);
    const score = Math.min(100, raw * decay(lastAt, now));
    const expected = {
      page_views: v.views.length,
      sessions,
      first_seen: Date.parse(v.views[0].receivedAt),
      last_seen: Date.parse(v.views.at(-1).receivedAt),
      last_page: v.views.at(-1).path,
    };
    const res = await details(vid);
    const got = res.status === 200 ? (res.body?.visitor ?? {}) : { status: res.status };
    // The score is an integer of a sum that kept decaying since: within half a point (a page view or a session more or less is 1 or 4).
    const gotScore = res.status === 200 ? res.body?.visitor?.intent?.score : undefined;
    if (typeof gotScore !== 'number' || Math.abs(gotScore - score) >= 0.55)
      scoreMismatches.push({ vid, expected: Math.round(score * 100) / 100, actual: gotScore ?? null });
    const actual = {
      page_views: got.page_views,
      sessions: got.sessions,
      first_seen: Date.parse(got.first_seen),
      last_seen: Date.parse(got.last_seen),
      last_page: got.last_page,
    };
    compared++;
    if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ vid, expected, actual });
  }
  const dlq = (await readTopic(brokers, COLLECTED_DLQ)).filter((r) => r.value.includes(siteId));
  const pageViews = [...byVisitor.values()].reduce((n, v) => n + v.views.length, 0);
  return {
    figures: { pageViews, copies, visitors: compared },
    results: [
      {
        name: 'every page view answered 200 is in visitors.collected',
        ok: lost.length === 0 && load.ackedCount() > 0,
        detail: lost.length
          ? `${lost.length} missing, e.g. ${lost.slice(0, 3).join(', ')}`
          : `${load.ackedCount()} answered 200, all there (${pageViews} distinct, ${copies} repeated copies)`,
      },
      {
        name: "every visitor's aggregates equal a replay of its page views in Kafka (page views once, sessions, first/last seen, last page)",
        ok: mismatches.length === 0 && compared > 0,
        detail: mismatches.length
          ? `${mismatches.length} of ${compared} differ, e.g. ${JSON.stringify(mismatches[0])}`
          : `${compared} visitors, ${pageViews} page views`,
      },
      {
        name: "every visitor's intent score equals a replay of its page views in Kafka (a page view 1 point, a session 3, decayed)",
        ok: scoreMismatches.length === 0 && compared > 0,
        detail: scoreMismatches.length ? `${scoreMismatches.length} of ${compared} differ, e.g. ${JSON.stringify(scoreMismatches[0])}` : `${compared} visitors`,
      },
      { name: 'no collected page view dead-lettered (visitors.collected.dlq)', ok: dlq.length === 0, detail: `${dlq.length}` },
    ],
  };
}

module.exports = {
  visitorsChecks,
  readTopic,
  groupLag,
  deliveryChecks,
  logChecks,
  kafkaPurgeCheck,
  redisPurgeCheck,
  keyClass,
  parseMetrics,
  readRawCopies,
  replayPerson,
};
