#!/usr/bin/env node
// npm start: local infrastructure up, build, migrate, run the services, seed a demo account
// (event token and two playbooks) and print how to use it. Ctrl-C / SIGTERM stops everything.
'use strict';
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT, build, mustRun } = require('./lib.js');
const { readEnv, serviceDatabaseUrl } = require('./infra/env.js');
const { describeRuntime, checkRuntime } = require('./runtime.js');

const HELP = `Usage: npm start [-- --no-seed]

Starts Kafka (from its jars), checks Postgres and Redis (DATABASE_URL, REDIS_URL), applies the
migrations, runs the services (gateway on PORT, default 8080; playbook service on PLAYBOOK_PORT,
default 8082; the internal enrichment service on ENRICHMENT_PORT, default 8081; the webhooks
service on WEBHOOKS_PORT, default 8083; the visitors service on VISITORS_PORT, default 8084), then creates a
demo account (event token, API key, two playbooks, 200 synthetic persons and their visitors, a
site with some 30 page views from the companies and networks of the demo IP data, scripts/demo-data)
and prints it, and serves a small demo website with the site tag on DEMO_SITE_PORT (default 3000)
to browse and then find yourself in the console's Visitors and Companies pages.
  --no-seed   do not create the demo account (nor import the demo IP data, nor serve the demo website)`;

const DEMO_SITE_PORT = Number(process.env.DEMO_SITE_PORT || 3000);
/** @type {{ close(): Promise<void> } | undefined} */
let demoSite;

/** @type {Record<string, string>} */
const env = {
  ...process.env,
  DATABASE_URL: readEnv().databaseUrl,
  PORT: process.env.PORT || '8080',
  PLAYBOOK_PORT: process.env.PLAYBOOK_PORT || '8082',
  ENRICHMENT_PORT: process.env.ENRICHMENT_PORT || '8081',
  WEBHOOKS_PORT: process.env.WEBHOOKS_PORT || '8083',
  VISITORS_PORT: process.env.VISITORS_PORT || '8084',
  KAFKAJS_NO_PARTITIONER_WARNING: '1',
  // The operator API (and so the CLI, which goes through it): a fresh token each run unless one is given.
  OPERATOR_TOKEN: process.env.OPERATOR_TOKEN || require('node:crypto').randomBytes(24).toString('hex'),
};
env.ENRICHMENT_URL = process.env.ENRICHMENT_URL || `http://127.0.0.1:${env.ENRICHMENT_PORT}`;
env.PLAYBOOK_URL = process.env.PLAYBOOK_URL || `http://127.0.0.1:${env.PLAYBOOK_PORT}`;
env.WEBHOOKS_URL = process.env.WEBHOOKS_URL || `http://127.0.0.1:${env.WEBHOOKS_PORT}`;
env.VISITORS_URL = process.env.VISITORS_URL || `http://127.0.0.1:${env.VISITORS_PORT}`;

const SERVICES = [
  { name: 'gateway', main: 'services/gateway/dist/main.js', port: env.PORT },
  { name: 'playbook', main: 'services/playbook/dist/main.js', port: env.PLAYBOOK_PORT },
  { name: 'enrichment', main: 'services/enrichment/dist/main.js', port: env.ENRICHMENT_PORT },
  { name: 'webhooks', main: 'services/webhooks/dist/main.js', port: env.WEBHOOKS_PORT },
  { name: 'visitors', main: 'services/visitors/dist/main.js', port: env.VISITORS_PORT },
];

const children = [];

function startService({ name, main }) {
  // Each service logs in as its own role, limited to its schema (the migrations create the roles locally).
  const childEnv = { ...env, DATABASE_URL: serviceDatabaseUrl(env.DATABASE_URL, name) };
  const child = spawn(process.execPath, [path.join(ROOT, main)], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping everything`);
      stop(1);
    }
  });
  children.push(child);
}

async function waitReady({ name, port }) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready on port ${port} within 60 s`);
}

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  void demoSite?.close();
  let left = children.filter((c) => c.exitCode === null).length;
  if (left === 0) process.exit(code);
  for (const child of children) {
    child.once('exit', () => {
      if (--left === 0) process.exit(code);
    });
    child.kill('SIGTERM');
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) return console.log(HELP);
  // Node 24 (node_modules/.bin/node, first on PATH under npm); the services run on this same node.
  console.log(describeRuntime());
  checkRuntime();
  await require('./infra/up.js').up();
  await build();
  await mustRun(process.execPath, [path.join(ROOT, 'scripts', 'migrate.js')], { env });
  const seeding = !args.includes('--no-seed');
  // The demo's IP data before the services: the visitors service loads it at start.
  const ipData = seeding ? await require('./seed-demo.js').seedIpData(env.DATABASE_URL) : undefined;
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  SERVICES.forEach(startService);
  await Promise.all(SERVICES.map(waitReady));
  if (seeding) {
    const gatewayUrl = `http://127.0.0.1:${env.PORT}`;
    const siteOrigin = `http://127.0.0.1:${DEMO_SITE_PORT}`;
    const demo = await require('./seed-demo.js').seedDemo({ databaseUrl: env.DATABASE_URL, gatewayUrl, siteOrigin });
    // A small website with the tag installed, so the visitor half can be tried in a browser.
    const site = await require('./demo-site.js').startDemoSite({ port: DEMO_SITE_PORT, gatewayUrl, siteKey: demo.site.key, sampleEmail: demo.sample.email });
    demoSite = site;
    console.log(require('./seed-demo.js').describe({ ...demo, ipData, siteUrl: site.url }, gatewayUrl, env.OPERATOR_TOKEN));
  }
  console.log(`Glimpse is running on node ${process.version}: gateway http://127.0.0.1:${env.PORT}  (Ctrl-C stops it)`);
  console.log(`The CLI (npx glimpse) talks to it with: export GLIMPSE_URL=http://127.0.0.1:${env.PORT} GLIMPSE_OPERATOR_TOKEN=${env.OPERATOR_TOKEN}`);
}

// A fresh clone: npm ci first (node_modules absent or from another lockfile), then on Node 24.
const wantsHelp = process.argv.includes('--help') || process.argv.includes('-h');
if (wantsHelp || require('./ensure-install.js').ensureInstalledAndOnProjectNode()) {
  main().catch((err) => {
    console.error(`npm start: ${err.message}`);
    stop(1);
  });
}
