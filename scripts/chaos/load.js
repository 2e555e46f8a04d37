// The steady load of the chaos suite: events (each person's one after another, so their order is
// defined; people in parallel) and lookups, at a bounded rate, retried the way a careful client
// would (same Idempotency-Key, after Retry-After, on the other gateway when one does not answer).
// Every answer is classified; what a fault explains is counted apart from what is a failure.
'use strict';
const { seededRandom } = require('./fuzzer-cases.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A shared pacer: at most `rate` starts per second over all workers. */
function createPacer(rate) {
  const interval = 1000 / rate;
  let next = Date.now();
  return async () => {
    const now = Date.now();
    next = Math.max(next + interval, now);
    const wait = next - interval - now;
    if (wait > 0) await sleep(wait);
  };
}

/** What a fetch error was: the server closed without an answer, refused, or did not answer in time. */
function errorKind(err) {
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'no_answer_timeout';
  const code = err?.cause?.code ?? err?.code;
  if (code === 'ECONNREFUSED') return 'refused';
  return 'closed_without_answer';
}

function counter() {
  const counts = {};
  return {
    counts,
    add: (k, n = 1) => {
      counts[k] = (counts[k] ?? 0) + n;
    },
  };
}

/**
 * `explained(gatewayIndex, kind, startMs, endMs)`: true when a fault the suite made explains a
 * refused or unanswered request (that gateway was killed or down meanwhile).
 */
function createEventLoad({ gateways, token, people, names, rate, workers, runId, marker, explained, seed = 7, retryForMs = 90_000, timeoutMs = 20_000 }) {
  const rng = seededRandom(seed);
  const pace = createPacer(rate);
  const outcomes = counter();
  const failures = [];
  const events = new Map(); // seq -> { seq, email, name, acked, attempts }
  const byPerson = new Map(people.map((p) => [p.email, []])); // email -> seqs in send order
  const latencies = []; // ms of the answers 200, sampled
  let seq = 0;
  let stopping = false;
  let inFlight = 0;
  const fail = (what, detail) => {
    outcomes.add(`FAIL ${what}`);
    if (failures.length < 200) failures.push({ what, ...detail });
  };

  async function sendOne(person, personIndex) {
    const n = ++seq;
    const name = names[Math.floor(rng() * names.length)];
    // firstAt: when its first attempt started; ackedAt: when the answer 200 came.
    const record = { seq: n, email: person.email, name, acked: false, attempts: 0, gaveUp: false, firstAt: Date.now(), ackedAt: 0 };
    events.set(n, record);
    byPerson.get(person.email).push(n);
    const body = JSON.stringify({ event: name, email: person.email, properties: { seq: n, note: `pv-${marker}`, plan: 'chaos' } });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `chaos-${runId}-${n}` };
    let g = personIndex % gateways.length;
    const deadline = Date.now() + retryForMs;
    for (;;) {
      record.attempts++;
      const start = Date.now();
      let status = null;
      let retryAfter = null;
      let kind = null;
      let text = '';
      try {
        const res = await fetch(`${gateways[g]}/events`, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        kind = errorKind(err);
      }
      const end = Date.now();
      let retry = false;
      if (status === 200) {
        outcomes.add('200');
        if (latencies.length < 200_000) latencies.push(end - start);
        record.acked = true;
        record.ackedAt = end;
        return;
      } else if (status === 503) {
        if (retryAfter === null) fail('503 without Retry-After', { seq: n, gateway: g, body: text.slice(0, 200) });
        else outcomes.add('503 + Retry-After (retried)');
        retry = true;
      } else if (status === 409 && /in_flight/.test(text)) {
        outcomes.add('409 key in flight (retried)');
        retry = true;
      } else if (status === 429) {
        fail('429 under the configured rate', { seq: n, gateway: g, body: text.slice(0, 200) });
        retry = true;
      } else if (status !== null) {
        fail(`${status} to a valid event`, { seq: n, gateway: g, body: text.slice(0, 300) });
      } else if (explained(g, kind, start, end)) {
        outcomes.add(`${kind} (gateway killed/down, retried)`);
        retry = true;
        g = (g + 1) % gateways.length;
      } else {
        fail(kind, { seq: n, gateway: g, ms: end - start });
        retry = true;
        g = (g + 1) % gateways.length;
      }
      if (!retry || Date.now() > deadline) {
        record.gaveUp = true;
        outcomes.add('gave up (never 200)');
        return;
      }
      await sleep(Math.min(2000, Math.max(200, Number(retryAfter ?? 0.5) * 1000)));
    }
  }

  async function worker(w) {
    const mine = people.map((p, i) => [p, i]).filter(([, i]) => i % workers === w);
    for (let round = 0; !stopping; round++) {
      for (const [person, i] of mine) {
        if (stopping) return;
        await pace();
        if (stopping) return;
        inFlight++;
        try {
          await sendOne(person, i);
        } finally {
          inFlight--;
        }
      }
    }
  }

  let running = null;
  return {
    outcomes: outcomes.counts,
    failures,
    events,
    byPerson,
    sent: () => seq,
    /** Percentiles of the time to an answer 200 (one attempt). */
    latency() {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
    },
    acked: () => [...events.values()].filter((e) => e.acked).length,
    inFlight: () => inFlight,
    start() {
      running = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
    },
    /** Stops sending new events; resolves when every event in flight is settled. */
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/** Lookups by visitor id, email and phone of seeded persons, through both gateways. */
function createLookupLoad({ gateways, apiKey, persons, rate, workers, explained, seed = 11, timeoutMs = 20_000 }) {
  const rng = seededRandom(seed);
  const pace = createPacer(rate);
  const outcomes = counter();
  const failures = [];
  const used = new Set(); // emails and phones sent, for the log check
  let stopping = false;
  const fail = (what, detail) => {
    outcomes.add(`FAIL ${what}`);
    if (failures.length < 200) failures.push({ what, ...detail });
  };

  async function one() {
    const p = persons[Math.floor(rng() * persons.length)];
    const g = Math.floor(rng() * gateways.length);
    const roll = rng();
    let req;
    if (roll < 0.4) {
      req = { kind: 'details', url: `${gateways[g]}/visitors/${p.visitorId}/details`, init: { method: 'GET' } };
    } else {
      const body = roll < 0.7 ? { email: p.email } : { phone: p.phone };
      used.add(body.email ?? body.phone);
      req = {
        kind: body.email ? 'enrichment by email' : 'enrichment by phone',
        url: `${gateways[g]}/visitors/enrichment`,
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      };
    }
    const start = Date.now();
    try {
      const res = await fetch(req.url, {
        ...req.init,
        headers: { ...req.init.headers, authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (res.status === 200) outcomes.add(`${req.kind}: 200`);
      else if (res.status === 503 && res.headers.get('retry-after') !== null) outcomes.add(`${req.kind}: 503 + Retry-After`);
      else fail(`${req.kind}: ${res.status}${res.status === 503 ? ' without Retry-After' : ''}`, { body: text.slice(0, 300) });
    } catch (err) {
      const kind = errorKind(err);
      if (explained(g, kind, start, Date.now())) outcomes.add(`${req.kind}: ${kind} (gateway killed/down)`);
      else fail(`${req.kind}: ${kind}`, { gateway: g, ms: Date.now() - start });
    }
  }

  let running = null;
  return {
    outcomes: outcomes.counts,
    failures,
    used,
    total: () => Object.values(outcomes.counts).reduce((a, b) => a + b, 0),
    start() {
      running = Promise.all(
        Array.from({ length: workers }, async () => {
          while (!stopping) {
            await pace();
            if (!stopping) await one();
          }
        }),
      );
    },
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/**
 * What the site tag sends (POST /collect, text/plain from the site's origin): page views of
 * `visitors` fixed visitor ids, each visitor's one after another (so their order in Kafka is the
 * order sent), every page view with a new id and a UTM campaign that changes every 5 page views (a
 * new session each time). A request not answered 200 is sent again unchanged: the ids make a copy
 * count once. Records per visitor the page-view ids answered 200.
 */
function createCollectLoad({ gateways, siteKey, origin, visitors, rate, explained, seed = 13, retryForMs = 90_000, timeoutMs = 20_000 }) {
  const rng = seededRandom(seed);
  const pace = createPacer(rate);
  const outcomes = counter();
  const failures = [];
  const vids = Array.from({ length: visitors }, (_, i) => (Math.floor(Date.now() / 1000).toString(16) + i.toString(16).padStart(16, '0')).slice(0, 24));
  const acked = new Map(vids.map((v) => [v, []])); // vid -> page-view ids answered 200, in send order
  let seq = 0;
  let gaveUp = 0;
  let stopping = false;
  const fail = (what, detail) => {
    outcomes.add(`FAIL ${what}`);
    if (failures.length < 200) failures.push({ what, ...detail });
  };
  const headers = {
    'content-type': 'text/plain;charset=UTF-8',
    origin,
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
  };

  async function sendOne(vid, k, g) {
    const id = `chaospv${++seq}`;
    const path = `/p/${Math.floor(rng() * 20)}`;
    const body = JSON.stringify({
      site: siteKey,
      vid,
      events: [
        { type: 'pageview', id, url: `${origin}${path}?q=1`, path, title: `Chaos ${path}`, utm: { source: 'chaos', campaign: `c${Math.floor(k / 5)}` } },
      ],
    });
    const deadline = Date.now() + retryForMs;
    for (;;) {
      const start = Date.now();
      let status = null;
      let retryAfter = null;
      let kind = null;
      let text = '';
      try {
        const res = await fetch(`${gateways[g]}/collect`, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        kind = errorKind(err);
      }
      if (status === 200) {
        outcomes.add('200');
        acked.get(vid).push(id);
        return;
      }
      if (status === 503) {
        if (retryAfter === null) fail('503 without Retry-After', { id, gateway: g, body: text.slice(0, 200) });
        else outcomes.add('503 + Retry-After (retried)');
      } else if (status !== null) {
        fail(`${status} to a valid page view`, { id, gateway: g, body: text.slice(0, 300) });
        return;
      } else if (explained(g, kind, start, Date.now())) {
        outcomes.add(`${kind} (gateway killed/down, retried)`);
        g = (g + 1) % gateways.length;
      } else {
        fail(kind, { id, gateway: g, ms: Date.now() - start });
        g = (g + 1) % gateways.length;
      }
      if (Date.now() > deadline) {
        gaveUp++;
        outcomes.add('gave up (never 200)');
        return;
      }
      await sleep(Math.min(2000, Math.max(200, Number(retryAfter ?? 0.5) * 1000)));
    }
  }

  let running = null;
  return {
    outcomes: outcomes.counts,
    failures,
    acked,
    sent: () => seq,
    ackedCount: () => [...acked.values()].reduce((n, ids) => n + ids.length, 0),
    gaveUp: () => gaveUp,
    start() {
      // One worker per visitor: a visitor's page views never overlap.
      running = Promise.all(
        vids.map(async (vid, i) => {
          for (let k = 0; !stopping; k++) {
            await pace();
            if (!stopping) await sendOne(vid, k, i % gateways.length);
          }
        }),
      );
    },
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/**
 * A burst of `count` events well above the account's events limit, to one gateway, as batches of
 * `batchSize` (POST /events/batch: the limit counts the events of a batch), all sent at once so that
 * the gateway decides them within the same second or two however slowly it answers. Not retried:
 * what is answered is what is counted. Item i carries `burst: i` and `run: tag` in its properties.
 * Resolves each batch's answer: { first (index of its first item), size, status, retryAfter,
 * accepted (indexes of the items answered ok), startedAt, at (ms, answer), kind (fetch error), body }.
 */
async function sendBurst({ gateway, token, count, batchSize, runId, marker, tag, timeoutMs = 30_000 }) {
  const batches = [];
  for (let first = 0; first < count; first += batchSize) batches.push({ first, size: Math.min(batchSize, count - first) });
  const answers = await Promise.all(
    batches.map(async ({ first, size }) => {
      const events = Array.from({ length: size }, (_, k) => ({
        event: 'signed_up',
        email: `burst${first + k}.${marker}@chaos-load.example`,
        properties: { burst: first + k, run: tag, note: `pv-${marker}` },
      }));
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `chaos-${runId}-burst-${first}` };
      const a = { first, size, status: null, retryAfter: null, accepted: [], startedAt: Date.now(), at: 0, kind: null, body: '' };
      try {
        const res = await fetch(`${gateway}/events/batch`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ events }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        a.status = res.status;
        a.retryAfter = res.headers.get('retry-after');
        const text = await res.text();
        a.body = text.slice(0, 200);
        if (res.status === 200) {
          const results = JSON.parse(text).results ?? [];
          a.accepted = results.map((r, k) => (r.ok ? first + k : null)).filter((i) => i !== null);
        }
      } catch (err) {
        a.kind = errorKind(err);
      }
      a.at = Date.now();
      return a;
    }),
  );
  return answers;
}

module.exports = { createEventLoad, createLookupLoad, createCollectLoad, sendBurst };
