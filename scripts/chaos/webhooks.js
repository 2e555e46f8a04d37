// The webhooks part of the chaos suite: two real HTTP receivers on loopback in the runner process
// (one that verifies every request's Standard Webhooks signature as it arrives and answers 204, or
// 500 to the first arrival of one id in 20 so that retries happen under the faults too; one that
// reads each request and never answers), and the checks of what they received against what the
// playbook replicas produced.
'use strict';
const crypto = require('node:crypto');
const http = require('node:http');
const { Webhook } = require('standardwebhooks');

/** One id in `oneIn`, decided by a hash of the id: the same id is refused on its first arrival in every run. */
const refusedFirst = (id, oneIn) => oneIn > 0 && crypto.createHash('sha256').update(String(id)).digest().readUInt32BE(0) % oneIn === 0;

function listen(server) {
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        close: async () => {
          for (const s of sockets) s.destroy();
          await new Promise((r) => server.close(() => r()));
        },
      }),
    ),
  );
}

/**
 * The healthy receiver. Each arrival is verified at once, as a real receiver must (Standard Webhooks
 * refuses a timestamp more than 5 minutes off, so it cannot be verified at the end of a run), with the
 * secret the endpoint's creation returned (`setSecret`). Keeps per webhook-id its arrivals: { at,
 * valid, status, effectId, type, playbookId, eventId } (the body's fields; never the email).
 */
async function startHealthyReceiver({ failFirstOneIn = 20 } = {}) {
  let webhook = null;
  const byId = new Map();
  let arrivals = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      let valid = false;
      let payload = null;
      try {
        payload = webhook.verify(body, {
          'webhook-id': id,
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        });
        valid = true;
      } catch {
        try {
          payload = JSON.parse(body);
        } catch {
          /* not JSON */
        }
      }
      const list = byId.get(id) ?? [];
      byId.set(id, list);
      const status = list.length === 0 && refusedFirst(id, failFirstOneIn) ? 500 : 204;
      list.push({
        at,
        valid,
        status,
        path: req.url,
        effectId: payload?.data?.effectId ?? null,
        type: payload?.type ?? null,
        playbookId: payload?.data?.playbookId ?? null,
        eventId: payload?.data?.eventId ?? null,
      });
      arrivals++;
      res.writeHead(status).end();
    });
  });
  const { port, close } = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    byId,
    arrivals: () => arrivals,
    setSecret(secret) {
      webhook = new Webhook(secret);
    },
    /** Ids with an arrival answered 204 that verified. */
    delivered: (id) => (byId.get(id) ?? []).some((a) => a.valid && a.status === 204),
    close,
  };
}

/** Reads each request and never answers; keeps each request's path, arrival and the moment its socket's close was seen. */
async function startHangingReceiver() {
  const requests = [];
  const server = http.createServer((req) => {
    const r = { path: req.url ?? '', at: Date.now(), closedAt: null };
    requests.push(r);
    req.resume();
    req.socket.once('close', () => {
      r.closedAt = Date.now();
    });
  });
  // A hanging request is ended by the webhooks service's time-out; never by this server.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  const { port, close } = await listen(server);
  return { base: `http://127.0.0.1:${port}`, requests, close };
}

/** The most intervals open at once, in all and per key: [{ key, from, to }] (an end before a start at the same moment). */
function peaks(intervals) {
  const points = intervals
    .flatMap((i) => [
      { t: i.from, d: 1, key: i.key },
      { t: i.to, d: -1, key: i.key },
    ])
    .sort((a, b) => a.t - b.t || a.d - b.d);
  const open = new Map();
  const byKey = new Map();
  let total = 0;
  let peak = 0;
  for (const p of points) {
    total += p.d;
    open.set(p.key, (open.get(p.key) ?? 0) + p.d);
    peak = Math.max(peak, total);
    byKey.set(p.key, Math.max(byKey.get(p.key) ?? 0, open.get(p.key)));
  }
  return { peak, byKey };
}

/**
 * How late this process may see a hanging request's socket close: the service ends it at its
 * time-out, and its next claim can be sent within milliseconds, while a busy event loop here reports
 * both in one turn in either order.
 */
const CLOSE_SEEN_LATE_MS = 1000;

const pct = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** The effects the load account's endpoint must have received: every playbook effect of the account (Postgres, playbook.playbook_effects). */
async function expectedEffects(pg, accountId, skipEmails) {
  const { rows } = await pg.query(
    'SELECT id::text AS id, event_id::text AS "eventId", playbook_id::text AS "playbookId", action, email FROM playbook.playbook_effects WHERE account_id = $1::uuid',
    [accountId],
  );
  return rows.filter((r) => !skipEmails.has(r.email));
}

/**
 * The webhooks checks, after the drain. `healthy`/`hanging`: the receivers; `endpointId`: the load
 * account's endpoint; `hangEndpointIds`: the hanging account's; `faultWindows`: [{ from, to }] (ms)
 * when a fault could delay a delivery (a webhooks replica killed, until its leases ended; Postgres
 * stopped or hung); `caps`: the WEBHOOKS_* settings the replicas ran with; `boundMs`: the fairness bound.
 */
async function webhooksChecks({ pg, brokers, readTopic, accountId, skipEmails, healthy, hanging, endpointId, hangEndpointIds, faultWindows, caps, boundMs }) {
  const results = [];
  const check = (name, ok, detail) => results.push({ name, ok, detail });
  const effects = await expectedEffects(pg, accountId, skipEmails);
  const byEffect = new Map(effects.map((e) => [e.id, e]));

  // The effects are the enrollments' starts and stops (the exact effects check's enrollments).
  const {
    rows: [enr],
  } = await pg.query(
    "SELECT count(*)::int AS started, count(*) FILTER (WHERE status = 'stopped')::int AS stopped FROM playbook.enrollments WHERE account_id = $1::uuid AND NOT (email = ANY($2::text[]))",
    [accountId, [...skipEmails]],
  );
  const started = effects.filter((e) => e.action === 'started').length;
  const stopped = effects.filter((e) => e.action === 'stopped').length;
  check(
    "webhooks: the load account's effects are its enrollments' starts and stops (playbook_effects against enrollments)",
    started === enr.started && stopped === enr.stopped && effects.length > 0,
    `${effects.length} effects (${started} started, ${stopped} stopped); enrollments: ${enr.started} started, ${enr.stopped} of them stopped`,
  );

  // Every effect received at least once, signed; nothing else received; a copy only under its own id.
  const lost = effects.filter((e) => !healthy.delivered(e.id));
  let copies = 0;
  let badSignatures = 0;
  let refused = 0;
  const wrongBody = [];
  const unexpected = [];
  const idsOfEffect = new Map();
  for (const [id, list] of healthy.byId) {
    const e = byEffect.get(id);
    if (!e) unexpected.push(id);
    copies += Math.max(0, list.filter((a) => a.status === 204).length - 1);
    refused += list.filter((a) => a.status !== 204).length;
    for (const a of list) {
      if (!a.valid) badSignatures++;
      if (a.effectId) idsOfEffect.set(a.effectId, new Set([...(idsOfEffect.get(a.effectId) ?? []), id]));
      if (e && (a.effectId !== id || a.type !== `enrollment.${e.action}` || a.playbookId !== e.playbookId || a.eventId !== e.eventId)) wrongBody.push(id);
    }
  }
  const underTwoIds = [...idsOfEffect].filter(([, ids]) => ids.size > 1);
  // Where a lost one went missing: never published by the playbook replicas, or published and not scheduled by the webhooks replicas.
  let whereLost = '';
  if (lost.length > 0) {
    const inKafka = new Set(
      (await readTopic(brokers, 'playbook.effects').catch(() => [])).map((r) => {
        try {
          return JSON.parse(r.value).effectId;
        } catch {
          return null;
        }
      }),
    );
    const { rows: marks } = await pg.query(
      'SELECT id::text AS id, published_at AS "publishedAt", at FROM playbook.playbook_effects WHERE id = ANY($1::uuid[])',
      [lost.map((e) => e.id)],
    );
    const scheduled = new Set(
      (await pg.query('SELECT effect_id::text AS id FROM webhooks.webhook_deliveries WHERE effect_id = ANY($1::uuid[])', [lost.map((e) => e.id)])).rows.map(
        (r) => r.id,
      ),
    );
    whereLost = `; of those, ${lost.filter((e) => inKafka.has(e.id)).length} in playbook.effects, ${scheduled.size} scheduled by the webhooks service (${marks
      .slice(0, 3)
      .map((m) => `${m.id.slice(0, 8)} at ${new Date(m.at).toISOString()} published ${m.publishedAt ? new Date(m.publishedAt).toISOString() : 'never'}`)
      .join(', ')})`;
  }
  check(
    'webhooks: every effect of the load account received by its endpoint at least once, with a valid Standard Webhooks signature (verified on arrival with the secret its creation returned)',
    lost.length === 0 && effects.length > 0,
    `${effects.length} effects, ${effects.length - lost.length} received and answered 204${
      lost.length
        ? `, ${lost.length} never (e.g. ${lost
            .slice(0, 3)
            .map((e) => `${e.id} ${e.action}`)
            .join(', ')})${whereLost}`
        : ''
    }; ${healthy.arrivals()} requests in all`,
  );
  check(
    'webhooks: every request verified, its body the effect it names (webhook-id = data.effectId, type, playbook, event), nothing foreign; a repeat only under the same webhook-id',
    badSignatures === 0 && wrongBody.length === 0 && unexpected.length === 0 && underTwoIds.length === 0,
    `${badSignatures} with a bad signature, ${wrongBody.length} bodies unlike their effect, ${unexpected.length} ids that are no effect of the account, ${underTwoIds.length} effects under two ids; ${copies} repeated copies (same webhook-id), ${refused} first arrivals answered 500 on purpose and retried`,
  );

  // The service's own record: every delivery to the endpoint delivered, one per effect.
  const { rows: states } = await pg.query('SELECT status, count(*)::int AS n FROM webhooks.webhook_deliveries WHERE endpoint_id = $1::uuid GROUP BY status', [
    endpointId,
  ]);
  const state = Object.fromEntries(states.map((r) => [r.status, r.n]));
  const recorded = Object.values(state).reduce((a, b) => a + b, 0);
  check(
    'webhooks: the service recorded one delivery per effect, every one delivered (none pending or given up)',
    recorded === effects.length && (state.delivered ?? 0) === effects.length,
    `${recorded} deliveries: ${
      Object.entries(state)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ') || 'none'
    }`,
  );

  // Dead letters: nothing of the load account's on the webhooks service's topic.
  let dead = 0;
  let deadNote = '';
  try {
    dead = (await readTopic(brokers, 'webhooks.dlq')).filter((r) => r.value.includes(accountId)).length;
  } catch (err) {
    deadNote = ` (webhooks.dlq unreadable: ${err.message})`;
  }
  check('webhooks: no effect of the load account dead-lettered (webhooks.dlq)', dead === 0 && !deadNote, `${dead}${deadNote}`);

  // Fairness. The hanging account held at most its share (per endpoint and in all) all along: as the
  // receiver saw it (a socket open until its close was seen, less how late that can be seen), and
  // as the service recorded its attempts (webhook_attempts: start and duration; an attempt cut short
  // by a SIGKILL is not recorded).
  const end = Date.now();
  const seen = peaks(hanging.requests.map((r) => ({ key: r.path, from: r.at, to: r.closedAt ?? end })));
  const received = peaks(hanging.requests.map((r) => ({ key: r.path, from: r.at, to: Math.max(r.at, (r.closedAt ?? end) - CLOSE_SEEN_LATE_MS) })));
  const { rows: hangAttempts } = await pg.query(
    'SELECT d.endpoint_id::text AS key, a.at, a.duration_ms AS ms FROM webhooks.webhook_attempts a JOIN webhooks.webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ANY($1::uuid[])',
    [hangEndpointIds],
  );
  const inRecord = peaks(hangAttempts.map((a) => ({ key: a.key, from: new Date(a.at).getTime(), to: new Date(a.at).getTime() + Number(a.ms) })));
  const within = (p) => p.peak <= caps.account && [...p.byKey.values()].every((n) => n <= caps.endpoint);
  const perKey = (p) => [...p.byKey.values()].join(' and ');
  check(
    `webhooks fairness: the hanging account held at most its share of slots (≤ ${caps.endpoint} in flight per endpoint, ≤ ${caps.account} in all, across both replicas) and kept hanging throughout`,
    hanging.requests.length > caps.account && hangAttempts.length > 0 && within(received) && within(inRecord),
    `${hanging.requests.length} requests to its ${hangEndpointIds.length} endpoints, none answered; open at once at the receiver at most ${received.peak} (per endpoint ${perKey(received) || '0'}; ${seen.peak} counting each until its close was seen, up to ${CLOSE_SEEN_LATE_MS} ms late); in the service's record of ${hangAttempts.length} attempts at most ${inRecord.peak} (per endpoint ${perKey(inRecord) || '0'})`,
  );

  // ...and the healthy endpoint was never starved: whenever it had deliveries due and not yet
  // attempted, it had its share of slots (its cap in flight) but for stretches of at most the bound.
  // A delivery is due when scheduled, or when the person's previous delivery to the endpoint
  // finished (per-person order); in flight from its attempt's start for its duration (the service's
  // own record, webhook_attempts). Stretches that overlap a fault are left out. With the hanging
  // account holding every slot, the endpoint would wait a whole time-out (10 s) at a time.
  const { rows } = await pg.query(
    `SELECT d.id::text AS id, d.effect_id::text AS "effectId", d.person_key AS person, d.created_at AS "createdAt", d.finished_at AS "finishedAt",
            (SELECT min(a.at) FROM webhooks.webhook_attempts a WHERE a.delivery_id = d.id) AS "firstAt"
     FROM webhooks.webhook_deliveries d WHERE d.endpoint_id = $1::uuid ORDER BY d.person_key, d.seq`,
    [endpointId],
  );
  const { rows: attemptRows } = await pg.query(
    'SELECT a.at, a.duration_ms AS ms FROM webhooks.webhook_attempts a JOIN webhooks.webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1::uuid',
    [endpointId],
  );
  const points = [];
  const lags = [];
  let prev = null;
  for (const r of rows) {
    const created = new Date(r.createdAt).getTime();
    const due = prev && prev.person === r.person && prev.finishedAt ? Math.max(created, new Date(prev.finishedAt).getTime()) : created;
    prev = r;
    const first = r.firstAt ? new Date(r.firstAt).getTime() : null;
    if (first === null) continue;
    lags.push(Math.max(0, first - due));
    if (first > due) points.push({ t: due, waiting: 1 }, { t: first, waiting: -1 });
  }
  for (const a of attemptRows) {
    const at = new Date(a.at).getTime();
    points.push({ t: at, inFlight: 1 }, { t: at + Number(a.ms), inFlight: -1 });
  }
  points.sort((x, y) => x.t - y.t);
  const overlapsFault = (from, to) => faultWindows.some((w) => w.from <= to && w.to >= from);
  let waiting = 0;
  let inFlight = 0;
  let starvedSince = null;
  let backlogSince = null;
  let longest = 0;
  let starvedStretches = 0;
  let backlogMs = 0;
  for (let i = 0; i < points.length;) {
    const t = points[i].t;
    for (; i < points.length && points[i].t === t; i++) {
      waiting += points[i].waiting ?? 0;
      inFlight += points[i].inFlight ?? 0;
    }
    const starved = waiting > 0 && inFlight < caps.endpoint;
    if (starved && starvedSince === null) starvedSince = t;
    if (!starved && starvedSince !== null) {
      if (!overlapsFault(starvedSince, t)) {
        longest = Math.max(longest, t - starvedSince);
        if (t - starvedSince > boundMs) starvedStretches++;
      }
      starvedSince = null;
    }
    if (waiting > 0 && backlogSince === null) backlogSince = t;
    if (waiting === 0 && backlogSince !== null) {
      if (!overlapsFault(backlogSince, t)) backlogMs += t - backlogSince;
      backlogSince = null;
    }
  }
  lags.sort((a, b) => a - b);
  check(
    `webhooks fairness: the healthy endpoint is not starved by the hanging one (while it had deliveries due, fewer than its ${caps.endpoint} slots in flight for at most ${boundMs / 1000} s at a time: one claim round of ${caps.pollMs / 1000} s plus the fairness test's slack; outside faults)`,
    starvedStretches === 0 && backlogMs > 0,
    `deliveries due and waiting for ${(backlogMs / 1000).toFixed(1)} s outside faults; the longest stretch of that with a slot free ${longest} ms, ${starvedStretches} over the bound; due to first attempt (behind the endpoint's own backlog too) p50 ${pct(lags, 0.5)} ms, p99 ${pct(lags, 0.99)} ms, max ${lags.at(-1) ?? 0} ms`,
  );

  return {
    results,
    figures: {
      effects: effects.length,
      delivered: effects.length - lost.length,
      lost: lost.length,
      requests: healthy.arrivals(),
      copies,
      refusedOnPurpose: refused,
      badSignatures,
      hanging: { requests: hanging.requests.length, peakOpen: received.peak, peakSeen: seen.peak, attempts: hangAttempts.length, peakRecorded: inRecord.peak },
      fairness: { backlogSeconds: Math.round(backlogMs / 100) / 10, longestStarvedMs: longest, starvedStretches },
      firstAttemptMs: { p50: pct(lags, 0.5), p99: pct(lags, 0.99), max: lags.at(-1) ?? 0 },
    },
  };
}

module.exports = { startHealthyReceiver, startHangingReceiver, webhooksChecks, expectedEffects };
