// The companies view under a realistic account: `visitors` visitor profiles (nine in ten of them at
// one of `companies` companies, the rest on home networks), one or two sessions each in the last 30
// days, their last pages, locations and networks, and the companies' firmographics in enrichment;
// written straight into the bench database with generate_series (seconds, not a replay of page
// views), then GET /account/companies through the gateway timed with autocannon: its default page,
// sorted by page views, filtered by industry (which reads every company's firmographics) and by country.
'use strict';
const { performance } = require('node:perf_hooks');
const { autocannonRun, summarizeAutocannon, assertLoopback } = require('./autocannon-run.js');

const INDUSTRIES = ['Software', 'Retail', 'Manufacturing', 'Finance', 'Healthcare', 'Education', 'Media', 'Logistics', 'Energy', 'Telecom'];
const SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'SE', 'JP', 'BR', 'IN'];

/** Seeds one account's visitors, sessions and companies; returns what it wrote. */
async function seedCompaniesView({ sql, accountId, siteId, visitors, companies, stamp }) {
  const domain = `'c' || ((i / 10) % ${companies}) || '-${stamp}.bench.example'`;
  await sql.query(
    `INSERT INTO enrichment.companies (domain, name, industry, size, employees, founded, location, profile_url, source, updated_at)
     SELECT 'c' || i || '-${stamp}.bench.example', 'Bench Company ' || i, ($1::text[])[1 + i % 10], ($2::text[])[1 + i % 6], 10 + i % 5000, 1950 + i % 70,
       jsonb_build_object('country', ($3::text[])[1 + i % 8], 'region', null, 'city', 'City ' || (i % 100)), null, 'import', now()
     FROM generate_series(0, $4::int - 1) i ON CONFLICT DO NOTHING`,
    [INDUSTRIES, SIZES, COUNTRIES, companies],
  );
  // Nine visitors in ten at a company (keyed by its domain), one in ten at home (no company).
  await sql.query(
    `INSERT INTO visitors.visitor_profiles (account_id, id, site_id, first_seen, last_seen, page_views, sessions, engaged_seconds, last_pages,
       company, company_at, network, location, company_key, created_at, updated_at)
     SELECT $1::uuid, lpad(to_hex(i), 8, '0') || substr(md5('${stamp}'), 1, 16), $2::uuid, t - interval '1 hour', t, 3, 1 + i % 2, 60,
       jsonb_build_array(jsonb_build_object('path', '/p/' || (i % 20), 'at', t), jsonb_build_object('path', '/pricing', 'at', t - interval '5 minutes'),
         jsonb_build_object('path', '/', 'at', t - interval '10 minutes')),
       CASE WHEN i % 10 = 9 THEN NULL ELSE jsonb_build_object('name', 'Bench Company ' || ((i / 10) % $3::int), 'domain', ${domain}) END,
       CASE WHEN i % 10 = 9 THEN NULL ELSE t END,
       jsonb_build_object('name', CASE WHEN i % 10 = 9 THEN 'Home ISP' ELSE 'Bench Company ' || ((i / 10) % $3::int) END, 'type', CASE WHEN i % 10 = 9 THEN 'isp' ELSE 'business' END, 'asn', 64512 + i % 1000),
       jsonb_build_object('country', ($4::text[])[1 + i % 8], 'region', null, 'city', 'City ' || (i % 100), 'time_zone', 'UTC'),
       CASE WHEN i % 10 = 9 THEN NULL ELSE ${domain} END, now(), now()
     FROM (SELECT i, now() - (i % 43200) * interval '1 minute' AS t FROM generate_series(0, $5::int - 1) i) g`,
    [accountId, siteId, companies, COUNTRIES, visitors],
  );
  await sql.query(
    `INSERT INTO visitors.visitor_sessions (account_id, visitor_id, number, site_id, started_at, last_at, page_views, landing_path)
     SELECT p.account_id, p.id, n, p.site_id, p.last_seen - interval '1 hour' * n, p.last_seen - interval '1 hour' * n + interval '10 minutes', 1 + n, '/'
     FROM visitors.visitor_profiles p CROSS JOIN LATERAL generate_series(1, p.sessions) n WHERE p.account_id = $1::uuid`,
    [accountId],
  );
  await sql.query('ANALYZE visitors.visitor_profiles; ANALYZE visitors.visitor_sessions; ANALYZE enrichment.companies');
  const {
    rows: [counts],
  } = await sql.query(
    `SELECT (SELECT count(*)::int FROM visitors.visitor_profiles WHERE account_id = $1::uuid) AS visitors,
       (SELECT count(*)::int FROM visitors.visitor_sessions WHERE account_id = $1::uuid) AS sessions,
       (SELECT count(DISTINCT company_key)::int FROM visitors.visitor_profiles WHERE account_id = $1::uuid) AS companies`,
    [accountId],
  );
  return counts;
}

/** The URLs timed: the default page, by page views, an industry filter, a country filter. */
function viewQueries(siteId) {
  return {
    default: `/account/companies?site=${siteId}`,
    byPageViews: `/account/companies?site=${siteId}&sort=page_views`,
    industry: `/account/companies?site=${siteId}&industry=Software`,
    country: `/account/companies?site=${siteId}&country=SE&min_visits=2`,
  };
}

/** Each query for `durationSec` with `connections` at once: latency percentiles and the first answer's size. */
async function measureCompaniesView({ gatewayUrl, apiKey, siteId, durationSec, connections, progress }) {
  assertLoopback(gatewayUrl);
  const out = {};
  for (const [name, path] of Object.entries(viewQueries(siteId))) {
    const first = await fetch(`${gatewayUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = /** @type {{ items: { key: string }[] }} */ (await first.json());
    if (first.status !== 200) throw new Error(`GET ${path} answered ${first.status}: ${JSON.stringify(body)}`);
    progress(`companies view: ${name} (${body.items.length} items on the first page), ${durationSec} s at ${connections} connections`);
    const run = summarizeAutocannon(
      await autocannonRun({ url: `${gatewayUrl}${path}`, connections, duration: durationSec, headers: { authorization: `Bearer ${apiKey}` } }),
    );
    out[name] = {
      items: body.items.length,
      firstItem: body.items[0]?.key ?? null,
      reqPerSec: run.reqPerSec,
      ok: run.ok,
      requests: run.requests,
      latencyMs: run.latencyMs,
    };
  }
  return out;
}

/**
 * The first request of `n` windows no one asked for before (each `until` a second apart): what a
 * dashboard's first look costs, before the aggregate is reused.
 */
async function coldRequests({ gatewayUrl, apiKey, siteId, n }) {
  const ms = [];
  const base = Math.ceil(Date.now() / 60_000) * 60_000;
  for (let i = 0; i < n; i += 1) {
    const until = new Date(base - (i + 1) * 1000).toISOString();
    const t = performance.now();
    const res = await fetch(`${gatewayUrl}/account/companies?site=${siteId}&until=${until}`, { headers: { authorization: `Bearer ${apiKey}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`a cold GET /account/companies answered ${res.status}`);
    ms.push(Math.round(performance.now() - t));
  }
  ms.sort((a, b) => a - b);
  return { requests: n, ms, p50: ms[Math.floor(n / 2)], max: ms[n - 1] };
}

module.exports = { seedCompaniesView, measureCompaniesView, coldRequests, viewQueries };
