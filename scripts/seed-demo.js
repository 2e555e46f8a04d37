// Seeds the demo account npm start prints: an account, a fresh event token (the plain value is
// only known at creation), and two playbooks. Rule 3 holds here too: the trigger names are sent
// through the running gateway first, so they are in the catalog when the playbooks are created.
'use strict';
const { createDb } = require('../shared/db/dist/index.js');
const { createAccount, createEventToken } = require('../shared/auth/dist/index.js');
const { createPlaybook, eventCatalog, listPlaybooks } = require('../services/playbook/dist/index.js');

const DEMO_ACCOUNT = 'Glimpse demo';
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

async function seedDemo({ databaseUrl, gatewayUrl }) {
  const db = createDb({ databaseUrl, poolSize: 2 });
  try {
    const existing = await db.account.findFirst({ where: { name: DEMO_ACCOUNT }, orderBy: { createdAt: 'asc' } });
    const accountId = existing ? existing.id : (await createAccount(db, DEMO_ACCOUNT)).id;
    const token = await createEventToken(db, accountId);
    const have = new Set((await listPlaybooks(db, accountId)).map((p) => p.name));
    const missing = PLAYBOOKS.filter((p) => !have.has(p.name));
    const names = [...new Set(missing.flatMap((p) => p.triggers))];
    for (const name of names) await postEvent(gatewayUrl, token.secret, name);
    const deadline = Date.now() + 30_000;
    while (names.length > 0) {
      const catalog = new Set((await eventCatalog(db, accountId)).map((e) => e.name));
      if (names.every((n) => catalog.has(n))) break;
      if (Date.now() > deadline) throw new Error('seed events did not reach the catalog within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const p of missing) await createPlaybook(db, { accountId, ...p });
    return { accountId, tokenId: token.id, token: token.secret, playbooks: await listPlaybooks(db, accountId) };
  } finally {
    await db.$disconnect();
  }
}

function describe(demo, gatewayUrl) {
  const lines = [
    '',
    'Demo account',
    `  account id   ${demo.accountId}`,
    `  event token  ${demo.token}   (id ${demo.tokenId})`,
    ...demo.playbooks.map((p) => `  playbook     ${p.id}  ${p.name}: triggers ${p.triggers.join(',') || '-'}; exits ${p.exits.join(',') || '-'}`),
    '',
    'Try it:',
    `  curl -s -X POST ${gatewayUrl}/events -H 'Authorization: Bearer ${demo.token}' \\`,
    `       -H 'Content-Type: application/json' -d '{"event":"signed_up","email":"ada@example.com"}'`,
    `  npx glimpse playbook enrollments --account ${demo.accountId} --playbook ${demo.playbooks[0]?.id}`,
    '',
  ];
  return lines.join('\n');
}

module.exports = { seedDemo, describe };
