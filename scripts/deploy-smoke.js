#!/usr/bin/env node
// npm run deploy:smoke: runs the images `npm run images` built, as containers on the host network,
// against this checkout's Kafka, Postgres and Redis: the migrate image migrates a fresh database,
// the three services start, an event through the gateway starts an enrollment, a details lookup
// and an enrichment lookup answer, and SIGTERM stops each container cleanly (exit 0). Everything
// listens on 127.0.0.1 on free ports; the database is dropped at the end. Not part of npm test
// (it needs the images, and takes minutes).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { smokeEnv } = require('./images/config.js');
const { createRunner } = require('./deploy-smoke-containers.js');
const { serviceDatabaseUrl } = require('./infra/env.js');

const HELP = `Usage: npm run deploy:smoke [-- --tag TAG] [--keep]

Runs localhost/glimpse-{migrate,gateway,playbook,enrichment}:TAG (default latest; build them with
npm run images) with buildah's runner (or docker where a daemon answers) on the host network, against
KAFKA_BROKERS, a fresh database next to DATABASE_URL's and REDIS_URL, and checks an event, the two
lookups and a clean SIGTERM of each. --keep leaves the containers and the database for inspection.`;

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s`;
const log = (msg) => console.log(`${elapsed()}  ${msg}`);

function parseArgs(argv) {
  const opts = { tag: 'latest', keep: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') opts.help = true;
    else if (argv[i] === '--tag') opts.tag = argv[++i];
    else if (argv[i] === '--keep') opts.keep = true;
    else throw new Error(`unknown option ${argv[i]} (see --help)`);
  }
  return opts;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, fn, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(250);
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (${last.message})` : ''}`);
}

async function http(method, url, { token = undefined, body = undefined } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function expectStatus(what, res, status) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

function urlWithDb(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withPg(url, fn) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh consumer group positioned at the topic's end, so old events of other runs are not replayed. */
async function freshGroupAtEnd(brokers, groupId) {
  const { Kafka, logLevel } = require('kafkajs');
  const { TOPICS } = require('../shared/messaging/dist/index.js');
  const admin = new Kafka({ clientId: 'deploy-smoke', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(TOPICS.eventsInbound);
    await admin.setOffsets({ groupId, topic: TOPICS.eventsInbound, partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })) });
    return offsets.length;
  } finally {
    await admin.disconnect();
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) return console.log(HELP);
  const env = smokeEnv();
  const c = createRunner();
  const run = crypto.randomBytes(3).toString('hex');
  const image = (name) => `localhost/glimpse-${name}:${opts.tag}`;
  for (const name of ['migrate', 'gateway', 'playbook', 'enrichment']) {
    if (!c.hasImage(image(name))) throw new Error(`image ${image(name)} not found: run npm run images first`);
  }
  const dbName = `${new URL(env.databaseUrl).pathname.slice(1) || 'glimpse'}_deploy_smoke`;
  const databaseUrl = urlWithDb(env.databaseUrl, dbName);
  const ports = { gateway: await freePort(), playbook: await freePort(), enrichment: await freePort() };
  const internalToken = crypto.randomBytes(24).toString('hex');
  const groupId = `glimpse-playbook-smoke-${run}`;
  const names = { gateway: `glimpse-smoke-gateway-${run}`, playbook: `glimpse-smoke-playbook-${run}`, enrichment: `glimpse-smoke-enrichment-${run}` };
  const common = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: env.redisUrl,
    KAFKA_BROKERS: env.kafkaBrokers,
    INTERNAL_TOKEN: internalToken,
    INTERNAL_TOKENS: `gateway=${internalToken}`,
  };
  const started = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-smoke-'));
  const inputDir = path.join(dataDir, 'input');
  fs.mkdirSync(inputDir);
  fs.chmodSync(dataDir, 0o755);
  fs.chmodSync(inputDir, 0o755);

  console.log(`deploy:smoke with ${c.kind}: images ${image('*')}, Kafka ${env.kafkaBrokers}, database ${dbName}, Redis ${env.redisUrl}`);
  console.log(`ports: gateway ${ports.gateway}, playbook ${ports.playbook}, enrichment ${ports.enrichment}; consumer group ${groupId}`);
  try {
    await withPg(urlWithDb(env.databaseUrl, 'postgres'), async (c) => {
      await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    });

    // 1. Migrations, by the migrate image's own command (it creates the database too).
    let t = Date.now();
    const migrate = c.once(image('migrate'), { env: { NODE_ENV: 'production', DATABASE_URL: databaseUrl } });
    log(`migrate image: ${(migrate.stderr + migrate.stdout).trim().split('\n').pop()} (${Date.now() - t} ms)`);
    const tables = await withPg(
      databaseUrl,
      async (c) =>
        (await c.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')")).rows[0].n,
    );
    log(`fresh database ${dbName}: ${tables} tables`);
    if (tables < 5) throw new Error('the migrate image left the database without its tables');

    // 2. The three services.
    const partitions = await freshGroupAtEnd(env.kafkaBrokers, groupId);
    log(`consumer group ${groupId} positioned at the end of ${partitions} partitions`);
    // The operator CLI goes through the gateway's operator API (nothing on the operator's machine opens a database), with this token.
    const operatorToken = crypto.randomBytes(32).toString('hex');
    const services = {
      // Production refuses to start on the development billing key.
      enrichment: { ENRICHMENT_PORT: String(ports.enrichment), ENRICHMENT_BILLING_KEY: crypto.randomBytes(32).toString('hex') },
      // Production refuses to start on the development erasure secret.
      playbook: { PLAYBOOK_PORT: String(ports.playbook), PLAYBOOK_GROUP_ID: groupId, PLAYBOOK_ERASURE_KEY: crypto.randomBytes(32).toString('hex') },
      // …and the gateway on the development link-token secret.
      gateway: {
        PORT: String(ports.gateway),
        ENRICHMENT_URL: `http://127.0.0.1:${ports.enrichment}`,
        PLAYBOOK_URL: `http://127.0.0.1:${ports.playbook}`,
        LINK_TOKEN_SECRET: crypto.randomBytes(32).toString('hex'),
        OPERATOR_TOKEN: operatorToken,
      },
    };
    for (const [svc, vars] of Object.entries(services)) {
      // Each service as its own Postgres role, limited to its schema (the migrate image created the roles).
      c.start(names[svc], image(svc), {
        env: { ...common, DATABASE_URL: serviceDatabaseUrl(databaseUrl, svc), ...vars },
        logFile: path.join(dataDir, `${svc}.log`),
      });
      started.push(svc);
    }
    t = Date.now();
    for (const svc of Object.keys(services)) {
      await until(`${svc} ready`, async () => (await http('GET', `http://127.0.0.1:${ports[svc]}/readyz`)).status === 200, 90_000);
    }
    log(`gateway, playbook and enrichment containers ready (/readyz 200) in ${Date.now() - t} ms`);

    // 3. An account and its credentials, by the operator CLI inside the gateway image.
    const cli = (args, mount) => {
      const r = c.once(image('gateway'), {
        env: { NODE_ENV: 'production', DATABASE_URL: databaseUrl, GLIMPSE_URL: `http://127.0.0.1:${ports.gateway}`, GLIMPSE_OPERATOR_TOKEN: operatorToken },
        cmd: ['node', 'tools/cli/bin/glimpse.js', ...args, '--json'],
        mounts: mount ? [`${inputDir}:/data:ro`] : [],
      });
      return JSON.parse(r.stdout);
    };
    // With the workflows add-on: the smoke posts events and makes a playbook.
    const account = cli(['account', 'create', '--name', `deploy smoke ${run}`, '--workflows']);
    const accountId = account.id ?? account.accountId;
    const apiKey = cli(['api-key', 'create', '--account', accountId, '--scopes', 'visitors:read,enrichment:read,account:manage']);
    const eventToken = cli(['event-token', 'create', '--account', accountId]);
    const keySecret = apiKey.secret ?? apiKey.key ?? apiKey.apiKey;
    const tokenSecret = eventToken.secret ?? eventToken.token ?? eventToken.eventToken;
    log(`CLI in the gateway image: account ${accountId}, an API key ${String(keySecret).slice(0, 12)}…, an event token ${String(tokenSecret).slice(0, 12)}…`);

    // A person and a visitor of the account, imported by the CLI from NDJSON files.
    const { generatePerson } = require('../services/enrichment/dist/index.js');
    const person = generatePerson(0, Number.parseInt(run, 16));
    const email = person.traits.work_email;
    const visitorId = crypto.randomBytes(12).toString('hex');
    fs.writeFileSync(path.join(inputDir, 'persons.ndjson'), `${JSON.stringify(person)}\n`);
    fs.writeFileSync(path.join(inputDir, 'visitors.ndjson'), `${JSON.stringify({ visitorId, email, page_views: 3 })}\n`);
    for (const f of fs.readdirSync(inputDir)) fs.chmodSync(path.join(inputDir, f), 0o644);
    cli(['import', 'persons', '/data/persons.ndjson'], true);
    cli(['import', 'visitors', '--account', accountId, '/data/visitors.ndjson'], true);
    log('CLI imported one person and one visitor');

    // 4. An event starts an enrollment: the trigger name is sent once (rule 3), the playbook made,
    //    then an event for a new person goes gateway → Kafka → playbook → Postgres.
    const gw = `http://127.0.0.1:${ports.gateway}`;
    const trigger = `smoke_signed_up_${run}`;
    expectStatus('first event', await http('POST', `${gw}/events`, { token: tokenSecret, body: { event: trigger, email: `first-${run}@smoke.example` } }), 200);
    await until('trigger name in the catalog', async () => {
      const r = await http('GET', `${gw}/account/events/catalog`, { token: keySecret });
      return r.status === 200 && JSON.stringify(r.json).includes(trigger);
    });
    const playbook = expectStatus(
      'playbook create',
      await http('POST', `${gw}/account/playbooks`, { token: keySecret, body: { name: `Smoke ${run}`, triggers: [trigger] } }),
      201,
    );
    const enrolled = `second-${run}@smoke.example`;
    t = Date.now();
    expectStatus('event', await http('POST', `${gw}/events`, { token: tokenSecret, body: { event: trigger, email: enrolled } }), 200);
    const enrollment = await until('enrollment', async () => {
      const r = await http('GET', `${gw}/account/playbooks/${playbook.id}/enrollments`, { token: keySecret });
      const items = r.json?.items ?? r.json?.data ?? r.json ?? [];
      return Array.isArray(items) ? items.find((i) => i.email === enrolled) : undefined;
    });
    log(`POST /events → 200; enrollment ${enrollment.status ?? 'active'} for ${enrolled} in playbook "${playbook.name}" after ${Date.now() - t} ms`);

    // 5. The two lookups, through the gateway to the enrichment container.
    const details = expectStatus('details lookup', await http('GET', `${gw}/visitors/${visitorId}/details`, { token: keySecret }), 200);
    log(`GET /visitors/${visitorId}/details → 200 (${Object.keys(details).length} fields)`);
    const enriched = expectStatus('enrichment lookup', await http('POST', `${gw}/visitors/enrichment`, { token: keySecret, body: { email } }), 200);
    log(`POST /visitors/enrichment → 200 (${Object.keys(enriched).length} members)`);
    expectStatus('unknown visitor', await http('GET', `${gw}/visitors/${'0'.repeat(24)}/details`, { token: keySecret }), 404);

    // 6. SIGTERM: each container drains and exits 0 well within Kubernetes' grace period.
    for (const svc of ['gateway', 'playbook', 'enrichment']) {
      const { code, ms } = await c.stop(names[svc]);
      const last = c.logs(names[svc], 1);
      log(`SIGTERM ${svc}: exit ${code} after ${ms} ms; last log line: ${last.slice(0, 160)}`);
      if (code !== 0) throw new Error(`${svc} exited with ${code} on SIGTERM`);
      if (ms > 20_000) throw new Error(`${svc} took ${ms} ms to stop (the pod gets 30 s with a 5 s preStop)`);
    }
    console.log(`\ndeploy:smoke passed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } catch (err) {
    for (const svc of started) console.error(`--- ${svc} (last lines)\n${c.logs(names[svc], 15)}`);
    throw err;
  } finally {
    if (!opts.keep) {
      for (const svc of started) c.remove(names[svc]);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await withPg(urlWithDb(env.databaseUrl, 'postgres'), (c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)).catch(() => {});
    }
  }
}

main().catch((err) => {
  console.error(`\ndeploy:smoke failed: ${err.message}`);
  process.exit(1);
});
