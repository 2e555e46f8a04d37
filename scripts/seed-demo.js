// Seeds the demo account npm start prints: an account with the workflows add-on, a fresh event token and API key (plain
// values are only known at creation), two playbooks, and a small synthetic dataset of persons with
// visitors of the account. Rule 3 holds here too: the trigger names are sent through the running
// gateway first, so they are in the catalog when the playbooks are created.
'use strict';
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
    const { workflows } = await dbs.identity.account.findUniqueOrThrow({ where: { id: accountId }, select: { workflows: true } });
    return {
      site,
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
    '',
    'Try it:',
    ...(demo.site && demo.siteUrl
      ? [
          `  open ${demo.siteUrl}/ and browse (the tag is installed; Contact identifies you), then`,
          `  the console's Visitors page ${gatewayUrl}/console/#/visitors (sign in with the API key)`,
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

module.exports = { seedDemo, describe };
