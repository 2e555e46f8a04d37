// Seeds the demo account npm start prints: an account with the workflows add-on, a fresh event token and API key (plain
// values are only known at creation), two playbooks, and a small synthetic dataset of persons with
// visitors of the account. Rule 3 holds here too: the trigger names are sent through the running
// gateway first, so they are in the catalog when the playbooks are created. The demo site gets a
// few page views from addresses of scripts/demo-data/demo-ranges.csv, which the demo's IP data
// (seedIpData, imported before the services start) names and locates: the Companies page has rows.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createHash, randomBytes } = require('node:crypto');
const { serviceDatabaseUrl } = require('./infra/env.js');
const { openServiceDbs } = require('./service-dbs.js');
const {
  createAccount,
  createApiKey,
  createEventToken,
  listApiKeys,
  listEventTokens,
  revokeCredential,
  setWorkflowsAddon,
  SCOPES,
} = require('../shared/auth/dist/index.js');
const { generatePerson, importPersons, importVisitors } = require('../services/enrichment/dist/index.js');
const { demoVisitorId } = require('../tools/cli/dist/commands/imports.js');
const { createPlaybook, eventCatalog, listPlaybooks } = require('../services/playbook/dist/index.js');
const { importIpDataset, importLocationFile } = require('../services/visitors/dist/index.js');

const DEMO_ACCOUNT = 'Glimpse demo';
const DEMO_PERSONS = 200;
const DEMO_SEED = 1;

async function* lines(count, line) {
  for (let i = 0; i < count; i++) yield JSON.stringify(line(i));
}

/** Persons (and the companies the import derives from their employers) are shared by all accounts; the visitors belong to the demo account. */
async function seedDataset(enrichmentDb, databaseUrl, accountId) {
  const persons = Array.from({ length: DEMO_PERSONS }, (_, i) => generatePerson(i, DEMO_SEED));
  await importPersons(
    lines(DEMO_PERSONS, (i) => persons[i]),
    { databaseUrl, defaultPhoneRegion: 'US' },
  );
  await importVisitors(
    lines(DEMO_PERSONS, (i) => ({ visitorId: demoVisitorId(accountId, i), email: persons[i].traits.work_email, page_views: 3 + (i % 11) })),
    accountId,
    { db: enrichmentDb, defaultPhoneRegion: 'US' },
  );
  return {
    visitorId: demoVisitorId(accountId, 0),
    email: persons[1].traits.work_email,
    phone: persons[2].traits.mobile_phone,
    domain: persons[1].organization.primary_domain,
  };
}

const PLAYBOOKS = [
  { name: 'Onboarding', triggers: ['signed_up'], exits: ['demo_booked'] },
  { name: 'Demo follow-up', triggers: ['demo_booked'], exits: ['purchase'] },
];

async function postEvent(gatewayUrl, token, event) {
  const res = await fetch(`${gatewayUrl}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ event, email: 'seed@demo.glimpse.dev' }),
  });
  if (!res.ok) throw new Error(`seeding ${event}: gateway answered ${res.status} ${await res.text()}`);
}

const DEMO_SITE = 'Demo site';

/** The demo site through the gateway's own sites API (reused when it exists), for the demo website npm start serves. */
async function seedSite(gatewayUrl, apiKey, origin) {
  /** @returns {Promise<any>} */
  const call = async (/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body = undefined) => {
    const res = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`seeding the demo site: ${method} ${path} answered ${res.status} ${await res.text()}`);
    return res.json();
  };
  const { items } = await call('GET', '/account/sites');
  const existing = items.find((/** @type {{ name: string }} */ s) => s.name === DEMO_SITE);
  if (existing && existing.origins.includes(origin)) return existing;
  if (existing) return call('PATCH', `/account/sites/${existing.id}`, { origins: [...existing.origins, origin] });
  return call('POST', '/account/sites', { name: DEMO_SITE, origins: [origin], track_events: ['pricing_viewed'] });
}

// The demo's IP data, shipped in the repository (scripts/demo-data/README.md): nothing is downloaded.
const DEMO_DATA = path.join(__dirname, 'demo-data');
const DEMO_CITY = { dataset: 'demo-city', file: path.join(DEMO_DATA, 'GeoIP2-City-Test.mmdb') };
const DEMO_RANGES = { dataset: 'demo-ranges', file: path.join(DEMO_DATA, 'demo-ranges.csv'), columns: ['start', 'end', 'asn', 'name', 'domain', 'type'] };

/**
 * Imports the demo's City database and ranges as the visitors role, each as its dataset's next
 * version (a re-run replaces them). npm start calls it before the services start, since the visitors
 * service loads its IP data at start (later, it would pick it up within VISITORS_IP_DATA_POLL_MS).
 * @param {string} databaseUrl
 */
async function seedIpData(databaseUrl) {
  const visitorsUrl = serviceDatabaseUrl(databaseUrl, 'visitors');
  const location = await importLocationFile(DEMO_CITY.file, { databaseUrl: visitorsUrl, dataset: DEMO_CITY.dataset });
  const lines = fs.readFileSync(DEMO_RANGES.file, 'utf8').split('\n');
  const ranges = await importIpDataset(lines, { databaseUrl: visitorsUrl, dataset: DEMO_RANGES.dataset, format: 'csv', columns: DEMO_RANGES.columns });
  if (ranges.skipped > 0) {
    const errors = ranges.errors.map((e) => `line ${e.line}: ${e.message}`).join('; ');
    throw new Error(`${path.relative(process.cwd(), DEMO_RANGES.file)}: ${ranges.skipped} bad line(s): ${errors}`);
  }
  return { location, ranges };
}

/**
 * The demo site's visitors: an address in one of demo-ranges.csv's ranges (each inside a located
 * block of the City test database) and the pages it views, about 30 page views from 12 visitors.
 */
const DEMO_VISITS = [
  { ip: '214.78.120.17', pages: ['/pricing?utm_source=demo&utm_campaign=launch', '/', '/app', '/app/one'] }, // Meridian Cloud, San Diego US
  { ip: '214.78.121.40', pages: ['/', '/pricing'] }, // Meridian Cloud, San Diego US
  { ip: '2001:480:10::1a', pages: ['/', '/contact'] }, // Meridian Cloud (IPv6), San Diego US
  { ip: '216.160.83.57', pages: ['/pricing?utm_source=demo&utm_campaign=launch', '/pricing', '/contact'] }, // Northwind Retail, Milton US
  { ip: '216.160.83.60', pages: ['/', '/app'] }, // Northwind Retail, Milton US
  { ip: '81.2.69.170', pages: ['/', '/pricing', '/app'] }, // Cobalt Labs, London GB
  { ip: '81.2.69.181', pages: ['/pricing', '/contact'] }, // Cobalt Labs, London GB
  { ip: '89.160.20.140', pages: ['/', '/pricing', '/contact'] }, // Nimbus Security, Linköping SE
  { ip: '149.101.100.5', pages: ['/', '/app'] }, // Harbor Media, US
  { ip: '2.125.160.218', pages: ['/pricing', '/app/two'] }, // Upland Cloud, Boxford GB
  { ip: '81.2.69.200', pages: ['/', '/pricing'] }, // Demo Broadband (isp), London GB: stays anonymous
  { ip: '214.0.1.23', pages: ['/', '/app'] }, // Demo Cloud Hosting (hosting), Melbourne AU: stays anonymous
];
const PAGE_TITLES = { '/': 'Home', '/pricing': 'Pricing', '/contact': 'Contact' };
// An ordinary desktop browser's: a bot's page views would be set aside.
const DESKTOP_USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The i-th demo visit's visitor id, the same at every start: a re-run adds page views to the same 12 visitors. */
const visitVisitorId = (/** @type {string} */ accountId, /** @type {number} */ index) =>
  createHash('sha256').update(`${accountId}:demo-visit:${index}`).digest('hex').slice(0, 24);

/**
 * One page view as the tag sends it (text/plain JSON, the site's Origin), from `ip` through X-Forwarded-For.
 * @param {string} gatewayUrl
 * @param {{ siteKey: string, origin: string, vid: string, ip: string, page: string, referrer?: string }} view
 */
async function postPageView(gatewayUrl, { siteKey, origin, vid, ip, page, referrer }) {
  const url = new URL(page, origin);
  const utm = Object.fromEntries([...url.searchParams].filter(([k]) => k.startsWith('utm_')).map(([k, v]) => [k.slice(4), v]));
  const section = url.pathname.startsWith('/app') ? '/app' : url.pathname;
  const event = {
    type: 'pageview',
    id: randomBytes(12).toString('base64url'),
    url: url.href,
    path: url.pathname,
    title: `${PAGE_TITLES[section] ?? url.pathname} · Glimpse demo site`,
    ...(referrer ? { referrer } : {}),
    ...(Object.keys(utm).length > 0 ? { utm } : {}),
  };
  const res = await fetch(`${gatewayUrl}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin, 'user-agent': DESKTOP_USER_AGENT, 'x-forwarded-for': ip },
    body: JSON.stringify({ site: siteKey, vid, events: [event] }),
  });
  if (!res.ok) throw new Error(`seeding the demo visits: POST /collect from ${ip} answered ${res.status} ${await res.text()}`);
}

/**
 * Waits until the visitor's details carry a location (the visitors service applies page views from
 * Kafka, and locates them once its IP data is loaded); false after `timeoutMs`.
 * @param {string} gatewayUrl
 * @param {string} apiKey
 * @param {string} vid
 */
async function waitLocated(gatewayUrl, apiKey, vid, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${gatewayUrl}/visitors/${vid}/details`, { headers: { authorization: `Bearer ${apiKey}` } });
    const details = res.ok ? /** @type {{ location?: object }} */ (await res.json()) : undefined;
    if (details?.location) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/**
 * The demo visits, visitor by visitor: the first page view, then (once it is located, so the rest
 * are too) everything else.
 * @param {string} gatewayUrl
 * @param {{ accountId: string, apiKey: string, siteKey: string, origin: string }} demo
 */
async function seedVisits(gatewayUrl, { accountId, apiKey, siteKey, origin }) {
  const visits = DEMO_VISITS.map((v, i) => ({ ...v, vid: visitVisitorId(accountId, i) }));
  const [first] = visits;
  await postPageView(gatewayUrl, { siteKey, origin, vid: first.vid, ip: first.ip, page: first.pages[0] });
  const located = await waitLocated(gatewayUrl, apiKey, first.vid);
  let pageViews = 1;
  for (const [i, visit] of visits.entries()) {
    for (let p = i === 0 ? 1 : 0; p < visit.pages.length; p++) {
      const referrer = p > 0 ? new URL(visit.pages[p - 1], origin).href : undefined;
      await postPageView(gatewayUrl, { siteKey, origin, vid: visit.vid, ip: visit.ip, page: visit.pages[p], referrer });
      pageViews += 1;
    }
  }
  return { visitors: visits.length, pageViews, located, sampleVisitorId: first.vid };
}

async function seedDemo({ databaseUrl, gatewayUrl, siteOrigin }) {
  const dbs = openServiceDbs(databaseUrl);
  try {
    const existing = await dbs.identity.account.findFirst({ where: { name: DEMO_ACCOUNT }, orderBy: { createdAt: 'asc' } });
    const accountId = existing ? existing.id : (await createAccount(dbs.identity, DEMO_ACCOUNT, { workflows: true })).id;
    // The demo shows events and playbooks: the demo account has the workflows add-on (again, if an operator removed it).
    if (existing && !existing.workflows) await setWorkflowsAddon(dbs.identity, accountId, true);
    // Each start prints a new token and key and revokes the ones it printed before: the demo stays
    // far below the per-account caps of active credentials however often it is started.
    for (const old of await listEventTokens(dbs.identity, accountId))
      if (!old.revokedAt) await revokeCredential(dbs.identity, 'event_token', accountId, old.id);
    for (const old of await listApiKeys(dbs.identity, accountId)) if (!old.revokedAt) await revokeCredential(dbs.identity, 'api_key', accountId, old.id);
    const token = await createEventToken(dbs.identity, accountId);
    const apiKey = await createApiKey(dbs.identity, accountId, [...SCOPES]);
    const sample = await seedDataset(dbs.enrichment, databaseUrl, accountId);
    const have = new Set((await listPlaybooks(dbs.playbook, accountId)).map((p) => p.name));
    const missing = PLAYBOOKS.filter((p) => !have.has(p.name));
    const names = [...new Set(missing.flatMap((p) => p.triggers))];
    for (const name of names) await postEvent(gatewayUrl, token.secret, name);
    const deadline = Date.now() + 30_000;
    while (names.length > 0) {
      const catalog = new Set((await eventCatalog(dbs.playbook, accountId)).map((e) => e.name));
      if (names.every((n) => catalog.has(n))) break;
      if (Date.now() > deadline) throw new Error('seed events did not reach the catalog within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const p of missing) await createPlaybook(dbs.playbook, { accountId, ...p });
    const site = siteOrigin ? await seedSite(gatewayUrl, apiKey.secret, siteOrigin) : undefined;
    const visits = site ? await seedVisits(gatewayUrl, { accountId, apiKey: apiKey.secret, siteKey: site.key, origin: siteOrigin }) : undefined;
    const { workflows } = await dbs.identity.account.findUniqueOrThrow({ where: { id: accountId }, select: { workflows: true } });
    return {
      site,
      visits,
      accountId,
      workflows,
      tokenId: token.id,
      token: token.secret,
      apiKeyId: apiKey.id,
      apiKey: apiKey.secret,
      sample,
      playbooks: await listPlaybooks(dbs.playbook, accountId),
    };
  } finally {
    await dbs.disconnect();
  }
}

function describe(demo, gatewayUrl, operatorToken) {
  const lines = [
    '',
    'Demo account',
    `  account id   ${demo.accountId}`,
    `  add-ons      workflows ${demo.workflows ? 'on' : 'off'} (events, event tokens, playbooks, page rules: glimpse account workflows)`,
    `  event token  ${demo.token}   (id ${demo.tokenId})`,
    `  API key      ${demo.apiKey}   (id ${demo.apiKeyId}; scopes ${SCOPES.join(', ')})`,
    `  dataset      ${DEMO_PERSONS} synthetic persons (seed ${DEMO_SEED}), their companies and their visitors`,
    ...demo.playbooks.map((p) => `  playbook     ${p.id}  ${p.name}: triggers ${p.triggers.join(',') || '-'}; exits ${p.exits.join(',') || '-'}`),
    ...(demo.site ? [`  site         ${demo.site.id}  ${demo.site.name}: key ${demo.site.key}, origins ${demo.site.origins.join(', ')}`] : []),
    ...(demo.ipData
      ? [
          `  IP data      ${demo.ipData.location.dataset} (MaxMind's City test database) and ${demo.ipData.ranges.dataset} (${demo.ipData.ranges.imported} ranges), from scripts/demo-data`,
        ]
      : []),
    ...(demo.visits
      ? [
          `  visits       ${demo.visits.pageViews} page views of the site from ${demo.visits.visitors} visitors on demo-ranges' networks (companies, an ISP, a hosting network)`,
          ...(demo.visits.located
            ? []
            : ['  warning      the first demo page view was not located within 60 s: is the IP data loaded? (npx glimpse ip-datasets)']),
        ]
      : []),
    '',
    'Try it:',
    ...(demo.site && demo.siteUrl
      ? [
          `  open ${demo.siteUrl}/ and browse (the tag is installed; Contact identifies you), then`,
          `  the console's Visitors page ${gatewayUrl}/console/#/visitors (sign in with the API key)`,
        ]
      : []),
    ...(demo.visits
      ? [
          `  the console's Companies page ${gatewayUrl}/console/#/companies: the companies behind the demo visits, located, with their firmographics`,
          `  curl -s ${gatewayUrl}/account/companies -H 'Authorization: Bearer ${demo.apiKey}'`,
          `  curl -s ${gatewayUrl}/visitors/${demo.visits.sampleVisitorId}/details -H 'Authorization: Bearer ${demo.apiKey}'`,
        ]
      : []),
    `  curl -s -X POST ${gatewayUrl}/events -H 'Authorization: Bearer ${demo.token}' \\`,
    `       -H 'Content-Type: application/json' -d '{"event":"signed_up","email":"ada@example.com"}'`,
    ...(operatorToken
      ? [
          `  GLIMPSE_URL=${gatewayUrl} GLIMPSE_OPERATOR_TOKEN=${operatorToken} npx glimpse playbook enrollments --account ${demo.accountId} --playbook ${demo.playbooks[0]?.id}`,
        ]
      : []),
    `  curl -s ${gatewayUrl}/visitors/${demo.sample.visitorId}/details -H 'Authorization: Bearer ${demo.apiKey}'`,
    `  curl -s -X POST ${gatewayUrl}/visitors/enrichment -H 'Authorization: Bearer ${demo.apiKey}' \\`,
    `       -H 'Content-Type: application/json' -d '{"email":"${demo.sample.email}"}'`,
    `  curl -s -X POST ${gatewayUrl}/visitors/enrichment -H 'Authorization: Bearer ${demo.apiKey}' \\`,
    `       -H 'Content-Type: application/json' -d '{"phone":"${demo.sample.phone}"}'`,
    `  curl -s -X POST ${gatewayUrl}/companies/enrichment -H 'Authorization: Bearer ${demo.apiKey}' \\`,
    `       -H 'Content-Type: application/json' -d '{"domain":"${demo.sample.domain}"}'`,
    '',
  ];
  return lines.join('\n');
}

module.exports = { seedDemo, seedIpData, describe };
