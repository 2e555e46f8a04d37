// A segment's live count over a large account: `visitors` visitor profiles with intent scores
// (raw, time and rank as the visitors service keeps them), last pages, locations, networks and
// companies, written straight into the bench database with generate_series; then the count the
// segment API answers (the visitors service's own SQL, from dist/) timed for typical filters, each
// --runs times, with each plan's EXPLAIN ANALYZE; then one evaluation of a segment (its first, every
// member written, and a steady one) as the evaluator runs it.
'use strict';
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { randomUUID } = require('node:crypto');
const { summarize, round } = require('./lib/stats.js');
const suite = require('./lib/suite.js');

const description = "a segment's live count over 100,000 scored visitors (ms per count, by filter)";
const BENCH_DB = suite.benchDatabaseName('segments');
const TARGETS = { maxCountP50Ms: 100 };
const NUMERIC = { visitors: [100_000, 1000, 2_000_000], runs: [20, 1, 1000] };

const help = `Usage: npm run bench:segments [-- options]
       node scripts/bench.js segments [options]

${description}.
Infra up, build (visitors), migrate the ${BENCH_DB} database; one account with --visitors visitor
profiles (nine in ten at one of 1,000 companies; scores from 0 to about 120 as of the last 30 days;
last pages, country, network), then the count of each filter (visitors: score at least 50, score and
a page within 7 days, country and identified; companies: score at least 50) --runs times.
Target: p50 ≤ ${TARGETS.maxCountP50Ms} ms for each.
Writes bench/results/segments-<timestamp>.json, and bench/figures/segments.json for a valid run with the defaults.

Options:
  --visitors <n>   profiles of the account (default 100000)
  --runs <n>       counts per filter (default 20)
  --skip-build     do not build first
  --help           this text`;

/** @type {[string, string, Record<string, unknown>][]} */
const FILTERS = [
  ['visitors', 'score ≥ 50', { min_score: 50 }],
  ['visitors', 'score ≥ 30 and /pricing* within 7 days', { min_score: 30, pages: { pattern: '/pricing*', within_days: 7 } }],
  ['visitors', 'country DE, identified', { country: 'DE', identified: true }],
  ['visitors', 'everyone', {}],
  ['companies', 'companies, score ≥ 50', { min_score: 50 }],
];

async function seed(sql, accountId, visitors) {
  const half = 7 * 86400;
  await sql.query(
    `INSERT INTO visitors.visitor_profiles (account_id, id, site_id, first_seen, last_seen, page_views, sessions, last_pages, email, location, network,
       company, company_key, intent_raw, intent_at, intent_rank, intent_contributions)
     SELECT $1::uuid, lpad(to_hex(i), 24, '0'), $2::uuid, t, t, 3, 1, jsonb_build_array(
         jsonb_build_object('path', CASE WHEN i % 3 = 0 THEN '/pricing' ELSE '/p/' || (i % 20) END, 'title', null, 'at', t),
         jsonb_build_object('path', '/', 'title', null, 'at', t - interval '5 minutes')),
       CASE WHEN i % 5 = 0 THEN 'v' || i || '@bench.example' END,
       jsonb_build_object('country', (ARRAY['US','GB','DE','FR','SE','JP','BR','IN'])[1 + i % 8], 'region', null, 'city', null, 'time_zone', 'UTC'),
       jsonb_build_object('name', 'net', 'type', CASE WHEN i % 10 = 9 THEN 'isp' ELSE 'business' END, 'asn', 64512),
       CASE WHEN i % 10 = 9 THEN NULL ELSE jsonb_build_object('name', 'Bench ' || (i % 1000), 'domain', 'c' || (i % 1000) || '.bench.example') END,
       CASE WHEN i % 10 = 9 THEN NULL ELSE 'c' || (i % 1000) || '.bench.example' END,
       r, t, log(2::numeric, r::numeric)::float8 + extract(epoch FROM t) / ${half},
       jsonb_build_array(jsonb_build_object('key', 'page_view', 'reason', 'page views', 'units', r, 'at', t))
     FROM (SELECT i, now() - (i % 43200) * interval '1 minute' AS t, 1 + (i * 7919 % 120)::float8 AS r FROM generate_series(0, $3::int - 1) i) g`,
    [accountId, randomUUID(), visitors],
  );
  await sql.query('ANALYZE visitors.visitor_profiles');
}

async function run(argv) {
  const begun = suite.beginRun('segments', argv, (a) => {
    const { values, numbers } = suite.parseSuiteArgs(a, { numeric: NUMERIC, options: { 'skip-build': { type: 'boolean' } } });
    return { ...numbers, build: !values['skip-build'] };
  });
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, problems, cleanups, result } = begun;
  const { progress, out } = suite.suiteOutput('segments');
  result.params = { visitors: opts.visitors, runs: opts.runs };
  result.shutdown = {};
  try {
    const { sql, dbs } = await suite.setUpInfraAndDatabase({
      env,
      name: BENCH_DB,
      poolSize: 2,
      buildFilters: ['@glimpse/visitors'],
      doBuild: opts.build,
      progress,
      cleanups,
    });
    // Required only now: dist/ exists after the build.
    const { segmentMembersSql } = require(path.join(__dirname, '..', 'services', 'visitors', 'dist', 'data', 'segment-sql.js'));
    const accountId = randomUUID();
    progress(`seeding ${opts.visitors} profiles`);
    const seedStart = performance.now();
    await seed(sql, accountId, opts.visitors);
    result.seedSeconds = round((performance.now() - seedStart) / 1000, 1);
    await sql.query('SET search_path TO visitors');
    result.counts = [];
    for (const [kind, label, filter] of FILTERS) {
      // As the service asks: the account's half-life (7 days, no settings) read before.
      const at = new Date();
      const part = segmentMembersSql(kind, filter, 7, at);
      const text = `SELECT count(*)::int AS n FROM (${part.sql}) m`;
      const params = [accountId, at.toISOString(), null, 7 * 86400, ...part.params];
      const ms = [];
      let n = 0;
      for (let i = 0; i < opts.runs + 1; i++) {
        const t = performance.now();
        n = (await sql.query(text, params)).rows[0].n;
        if (i > 0) ms.push(performance.now() - t); // the first warms the cache
      }
      const plan = (await sql.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)).rows[0]['QUERY PLAN'][0];
      const s = summarize(ms);
      result.counts.push({
        kind,
        filter: label,
        members: n,
        ms: { p50: round(s.p50, 1), p99: round(s.p99, 1), max: round(s.max, 1) },
        explainMs: round(plan['Execution Time'], 1),
      });
      out(
        `${label.padEnd(42)} ${String(n).padStart(7)} members  p50 ${round(s.p50, 1)} ms  p99 ${round(s.p99, 1)} ms  (EXPLAIN ANALYZE ${round(plan['Execution Time'], 1)} ms)`,
      );
      if (s.p50 > TARGETS.maxCountP50Ms) problems.push(`${label}: count p50 ${round(s.p50, 1)} ms > ${TARGETS.maxCountP50Ms} ms`);
    }
    // One evaluation of a segment of the first filter: its first (every member written) and a
    // steady one (nobody entered or left), as a replica's evaluator runs it.
    const dist = (file) => require(path.join(__dirname, '..', 'services', 'visitors', 'dist', 'data', file));
    const { createSegment } = dist('segment-repository.js');
    const { evaluateNextSegment } = dist('segment-alerts.js');
    const db = dbs.visitors;
    await createSegment(db, accountId, { name: 'bench', kind: 'visitors', filter: FILTERS[0][2], alertWindowHours: 24, keys: null });
    // Other segments of this database (earlier runs) are not due: evaluated in the future.
    await sql.query(`UPDATE visitors.segments SET evaluated_at = now() + interval '1 day' WHERE account_id <> $1::uuid`, [accountId]);
    const timed = async () => {
      const t = performance.now();
      await evaluateNextSegment(db, new Date(), 0);
      return round(performance.now() - t, 1);
    };
    const firstMs = await timed();
    const steady = [];
    for (let i = 0; i < 5; i++) steady.push(await timed());
    result.evaluation = { members: result.counts[0].members, firstMs, steadyMs: summarize(steady).p50 };
    out(`evaluation of a ${result.counts[0].members}-member segment: first ${firstMs} ms, then ${result.evaluation.steadyMs} ms (p50 of 5)`);
    await sql.query('DELETE FROM visitors.segments WHERE account_id = $1::uuid', [accountId]);
    await sql.query('DELETE FROM visitors.visitor_profiles WHERE account_id = $1::uuid', [accountId]);
  } catch (err) {
    problems.push(`run failed: ${err.message}`);
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
  suite.closeResult(result, TARGETS, problems);
  suite.writeAndPrintSummary({
    result,
    fields: { visitors: opts.visitors, counts: result.counts, evaluation: result.evaluation },
    startedAt,
    problems,
    targetsLine: `targets  count p50 ≤ ${TARGETS.maxCountP50Ms} ms per filter`,
    out,
    latest: opts.visitors === NUMERIC.visitors[0] && opts.runs === NUMERIC.runs[0],
  });
  return result.valid ? 0 : 1;
}

module.exports = { description, help, run };
