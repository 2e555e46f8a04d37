#!/usr/bin/env node
// npm run deploy:smoke:kafka: proves the Kafka part of deploy/k8s on a real broker. Starts a
// private single-node KRaft broker of the version the Kafka resource names, with what the cluster
// has: a TLS listener with SCRAM-SHA-512, the StandardAuthorizer denying by default, the topics of
// topics.json and exactly the ACLs of the rendered KafkaUsers. Then, with kafkajs (the services'
// client) over TLS + SCRAM, each user does what its service does and is refused what it does not.
// Loopback only, on free ports; the broker is stopped by its pid and its files removed.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');
const YAML = require('yaml');
const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = require('kafkajs');
const { ROOT } = require('./lib.js');

const HELP = `Usage: npm run deploy:smoke:kafka

Starts a private Kafka broker (the version in deploy/k8s/base/kafka/kafka.yaml, jars via Maven, cached
in .infra/kafka-<version>) with a SASL_SSL listener (SCRAM-SHA-512), default-deny ACLs, the topics of
shared/messaging/src/topics.json and the ACLs of the KafkaUsers in deploy/k8s/base/kafka; checks
with kafkajs what each user may and may not do; stops the broker. Needs java, mvn, openssl, kubectl.`;

const t0 = Date.now();
const log = (m) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s  ${m}`);
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/** The rendered Kafka resources: the broker version and config, topics and users. */
function clusterSpec() {
  const docs = YAML.parseAllDocuments(sh('kubectl', ['kustomize', path.join(ROOT, 'deploy', 'k8s', 'base', 'kafka')], { maxBuffer: 16 << 20 })).map((d) =>
    d.toJS(),
  );
  const kafka = docs.find((d) => d.kind === 'Kafka');
  return {
    version: kafka.spec.kafka.version,
    config: kafka.spec.kafka.config,
    topics: docs.filter((d) => d.kind === 'KafkaTopic'),
    users: docs.filter((d) => d.kind === 'KafkaUser'),
  };
}

function ensureJars(version) {
  const libs = path.join(ROOT, '.infra', `kafka-${version}`, 'libs');
  if (fs.existsSync(path.join(libs, '.done'))) return libs;
  log(`fetching Kafka ${version} jars with Maven`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-pom-'));
  fs.writeFileSync(
    path.join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>dev.glimpse.smoke</groupId><artifactId>kafka-smoke</artifactId><version>0.0.0</version><packaging>pom</packaging>
<dependencies><dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${version}</version></dependency>
<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>1.7.36</version></dependency></dependencies>
<build><pluginManagement><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin></plugins></pluginManagement></build></project>`,
  );
  sh('mvn', ['-q', '-B', '-f', path.join(dir, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`], { stdio: 'inherit' });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.writeFileSync(path.join(libs, '.done'), version);
  return libs;
}

/** A CA and a broker certificate for 127.0.0.1, as PEM files Kafka reads directly. */
function makeCerts(dir) {
  const o = (args) => sh('openssl', args, { cwd: dir });
  o(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=glimpse-smoke-ca']);
  o(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'broker.key', '-out', 'broker.csr', '-subj', '/CN=localhost']);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  o(['x509', '-req', '-in', 'broker.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'broker.crt', '-days', '1', '-extfile', 'san.ext']);
  o(['pkcs8', '-topk8', '-nocrypt', '-in', 'broker.key', '-out', 'broker.pk8']);
  fs.writeFileSync(path.join(dir, 'broker.pem'), fs.readFileSync(path.join(dir, 'broker.pk8'), 'utf8') + fs.readFileSync(path.join(dir, 'broker.crt'), 'utf8'));
  return fs.readFileSync(path.join(dir, 'ca.crt'), 'utf8');
}

async function startBroker({ libs, dir, spec, ports, passwords }) {
  const props = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${ports.controller}`,
    // SASL_SSL: the cluster's client listener. ADMIN: plaintext on loopback for this script's set-up
    // (the super user here; in the cluster Strimzi's own operators have that role).
    listeners: `SASL_SSL://127.0.0.1:${ports.client},ADMIN://127.0.0.1:${ports.admin},CONTROLLER://127.0.0.1:${ports.controller}`,
    'advertised.listeners': `SASL_SSL://127.0.0.1:${ports.client},ADMIN://127.0.0.1:${ports.admin}`,
    'listener.security.protocol.map': 'SASL_SSL:SASL_SSL,ADMIN:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'ADMIN',
    'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': path.join(dir, 'broker.pem'),
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'allow.everyone.if.no.acl.found': false,
    'super.users': 'User:ANONYMOUS',
    'log.dirs': path.join(dir, 'data'),
    'offsets.topic.num.partitions': 1,
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    // The Kafka resource's config, except what needs three brokers.
    ...Object.fromEntries(Object.entries(spec.config).filter(([k]) => !/replication\.factor|min\.insync|min\.isr/.test(k))),
  };
  const config = path.join(dir, 'server.properties');
  fs.writeFileSync(
    config,
    Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
  const cp = path.join(libs, '*');
  const scram = Object.entries(passwords).flatMap(([name, pw]) => ['--add-scram', `SCRAM-SHA-512=[name=${name},password=${pw}]`]);
  sh('java', [
    '-cp',
    cp,
    'kafka.tools.StorageTool',
    'format',
    '--cluster-id',
    crypto.randomBytes(16).toString('base64url').replace(/^-/, 'A'),
    '--config',
    config,
    ...scram,
  ]);
  const out = fs.openSync(path.join(dir, 'broker.log'), 'w');
  const child = spawn('java', ['-Xmx512m', '-cp', cp, 'kafka.Kafka', config], { stdio: ['ignore', out, out], detached: true });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const up = await new Promise((r) =>
      net
        .connect(ports.admin, '127.0.0.1')
        .on('connect', function () {
          this.destroy();
          r(true);
        })
        .on('error', () => r(false)),
    );
    if (up) return child;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`broker did not start:\n${fs.readFileSync(path.join(dir, 'broker.log'), 'utf8').split('\n').slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const RESOURCE = { topic: AclResourceTypes.TOPIC, group: AclResourceTypes.GROUP, cluster: AclResourceTypes.CLUSTER };
const OPERATION = (op) => AclOperationTypes[op.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()];

/** Creates the topics (partitions and configs of the KafkaTopics) and the KafkaUsers' ACLs. */
async function applyCluster(admin, spec) {
  await admin.createTopics({
    waitForLeaders: true,
    topics: spec.topics.map((t) => ({
      topic: t.spec.topicName ?? t.metadata.name,
      numPartitions: t.spec.partitions,
      replicationFactor: 1,
      configEntries: Object.entries(t.spec.config)
        .filter(([k]) => k !== 'min.insync.replicas')
        .map(([name, value]) => ({ name, value: String(value) })),
    })),
  });
  const acl = spec.users.flatMap((u) =>
    u.spec.authorization.acls.flatMap((a) =>
      a.operations.map((op) => ({
        resourceType: RESOURCE[a.resource.type],
        resourceName: a.resource.name ?? 'kafka-cluster',
        resourcePatternType: ResourcePatternTypes[(a.resource.patternType ?? 'literal').toUpperCase()],
        principal: `User:${u.metadata.name}`,
        host: a.host ?? '*',
        operation: OPERATION(op),
        permissionType: AclPermissionTypes.ALLOW,
      })),
    ),
  );
  await admin.createAcls({ acl });
  // The broker's authorizer applies ACLs from the metadata log a moment later: wait until it serves all.
  const deadline = Date.now() + 30_000;
  const any = {
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ANY,
  };
  while ((await admin.describeAcls(any)).resources.reduce((n, r) => n + r.acls.length, 0) < acl.length) {
    if (Date.now() > deadline) throw new Error('the broker did not serve the ACLs within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return acl.length;
}

async function main() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) return console.log(HELP);
  const spec = clusterSpec();
  const libs = ensureJars(spec.version);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-kafka-smoke-'));
  const ports = { client: await freePort(), admin: await freePort(), controller: await freePort() };
  const passwords = Object.fromEntries(spec.users.map((u) => [u.metadata.name, crypto.randomBytes(16).toString('hex')]));
  const ca = makeCerts(dir);
  let broker;
  const results = [];
  try {
    broker = await startBroker({ libs, dir, spec, ports, passwords });
    log(`Kafka ${spec.version} up: SASL_SSL (SCRAM-SHA-512) on 127.0.0.1:${ports.client}, StandardAuthorizer, no ACL = denied`);
    const superKafka = new Kafka({ clientId: 'smoke-admin', brokers: [`127.0.0.1:${ports.admin}`], logLevel: logLevel.NOTHING });
    const adminClient = superKafka.admin();
    await adminClient.connect();
    const acls = await applyCluster(adminClient, spec);
    await adminClient.disconnect();
    // One account event for the accounts consumers to read (the identity outbox's user writes it in the cluster).
    const seed = superKafka.producer({ allowAutoTopicCreation: false });
    await seed.connect();
    await seed.send({
      topic: 'accounts',
      acks: -1,
      messages: [
        { key: crypto.randomUUID(), value: JSON.stringify({ type: 'account.created', accountId: crypto.randomUUID(), at: new Date().toISOString() }) },
      ],
    });
    // And one collected page view for the visitors consumer (the gateway's write is checked below).
    await seed.send({ topic: 'visitors.collected', acks: -1, messages: [{ key: 'site:0123456789abcdef01234567', value: '{"smoke":true}' }] });
    // And one identification for the webhooks consumer.
    await seed.send({ topic: 'visitors.identified', acks: -1, messages: [{ key: 'account:0123456789abcdef01234567', value: '{"smoke":true}' }] });
    // And one company visit for the companies consumer.
    await seed.send({ topic: 'visitors.companies', acks: -1, messages: [{ key: 'account:site:example.com', value: '{"smoke":true}' }] });
    // And one segment alert for the segments consumer.
    await seed.send({ topic: 'visitors.segments', acks: -1, messages: [{ key: 'account:segment', value: '{"smoke":true}' }] });
    await seed.disconnect();
    // Load the group coordinator (__consumer_offsets) before the checks: on a fresh broker the first
    // group operation can meet GROUP_LOAD_IN_PROGRESS, which is no ACL's doing.
    const warm = superKafka.consumer({ groupId: 'smoke-warm-up', sessionTimeout: 6000, rebalanceTimeout: 10000 });
    await warm.connect();
    await warm.subscribe({ topic: 'accounts', fromBeginning: true });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('warm-up: no message within 60 s')), 60_000);
      warm
        .run({
          eachMessage: async () => {
            clearTimeout(timer);
            resolve();
          },
        })
        .catch(reject);
    });
    await warm.disconnect();
    log(`${spec.topics.length} topics and ${acls} ACLs of ${spec.users.length} KafkaUsers applied`);

    const client = (user, password = passwords[user]) =>
      new Kafka({
        clientId: `smoke-${user}`,
        brokers: [`127.0.0.1:${ports.client}`],
        ssl: { ca: [ca], servername: 'localhost' },
        sasl: { mechanism: 'scram-sha-512', username: user, password },
        logLevel: logLevel.NOTHING,
        retry: { retries: 8, initialRetryTime: 200 },
        connectionTimeout: 5000,
      });
    const check = async (what, expectOk, fn) => {
      let ok = true;
      let detail = '';
      try {
        await fn();
      } catch (err) {
        ok = false;
        const cause = err.cause ?? err.originalError;
        detail = [err.type ?? err.name, cause?.type ?? cause?.message].filter(Boolean).join(': ');
        if (process.env.SMOKE_DEBUG) console.error(what, err);
      }
      results.push({ what, expected: expectOk ? 'allowed' : 'refused', got: ok ? 'allowed' : `refused (${detail})`, pass: ok === expectOk });
    };
    const produce = async (user, topic, options = {}) => {
      const p = client(user).producer({ allowAutoTopicCreation: false, ...options });
      await p.connect();
      try {
        await p.send({ topic, acks: -1, messages: [{ key: 'acct:a@example.com', value: '{"smoke":true}' }] });
      } finally {
        await p.disconnect();
      }
    };
    const consume = async (user, groupId, topic) => {
      const c = client(user).consumer({ groupId, sessionTimeout: 6000, rebalanceTimeout: 10000 });
      await c.connect();
      try {
        await c.subscribe({ topic, fromBeginning: true });
        await new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no message within 30 s')), 30_000);
          c.on(c.events.CRASH, (e) => {
            clearTimeout(timer);
            reject(e.payload.error);
          });
          c.run({
            eachMessage: async () => {
              clearTimeout(timer);
              resolve();
            },
          }).catch(reject);
        });
      } finally {
        await c.disconnect();
      }
    };
    const lag = async (user, groupId = 'glimpse-playbook', topic = 'events.inbound') => {
      const a = client(user).admin();
      await a.connect();
      try {
        await a.fetchTopicOffsets(topic);
        await a.fetchOffsets({ groupId, topics: [topic] });
      } finally {
        await a.disconnect();
      }
    };
    await check('gateway produces to events.inbound (acks=all)', true, () => produce('glimpse-gateway', 'events.inbound'));
    await check('gateway produces idempotently (Write is enough since Kafka 3.0)', true, () =>
      produce('glimpse-gateway', 'events.inbound', { idempotent: true, maxInFlightRequests: 1 }),
    );
    await check('gateway produces to playbook.effects', false, () => produce('glimpse-gateway', 'playbook.effects'));
    await check('gateway consumes events.inbound', false, () => consume('glimpse-gateway', 'glimpse-playbook', 'events.inbound'));
    await check('playbook consumes events.inbound in group glimpse-playbook', true, () => consume('glimpse-playbook', 'glimpse-playbook', 'events.inbound'));
    await check('playbook consumes in another group', false, () => consume('glimpse-playbook', 'someone-else', 'events.inbound'));
    await check('playbook produces to playbook.effects', true, () => produce('glimpse-playbook', 'playbook.effects'));
    await check('playbook produces to events.inbound.dlq', true, () => produce('glimpse-playbook', 'events.inbound.dlq'));
    await check('playbook produces to events.inbound', false, () => produce('glimpse-playbook', 'events.inbound'));
    await check('webhooks consumes accounts in group glimpse-webhooks-accounts', true, () =>
      consume('glimpse-webhooks', 'glimpse-webhooks-accounts', 'accounts'),
    );
    await check('enrichment consumes accounts in group glimpse-enrichment-accounts', true, () =>
      consume('glimpse-enrichment', 'glimpse-enrichment-accounts', 'accounts'),
    );
    await check('enrichment consumes accounts in another group', false, () => consume('glimpse-enrichment', 'glimpse-webhooks-accounts', 'accounts'));
    await check('enrichment consumes events.inbound', false, () => consume('glimpse-enrichment', 'glimpse-enrichment-accounts', 'events.inbound'));
    await check('enrichment produces to accounts', false, () => produce('glimpse-enrichment', 'accounts'));
    await check('gateway produces to visitors.collected', true, () => produce('glimpse-gateway', 'visitors.collected'));
    await check('gateway consumes visitors.collected', false, () => consume('glimpse-gateway', 'glimpse-visitors', 'visitors.collected'));
    await check('visitors consumes visitors.collected in group glimpse-visitors', true, () =>
      consume('glimpse-visitors', 'glimpse-visitors', 'visitors.collected'),
    );
    await check('visitors consumes visitors.collected in another group', false, () => consume('glimpse-visitors', 'glimpse-playbook', 'visitors.collected'));
    await check('visitors consumes accounts in group glimpse-visitors-accounts', true, () =>
      consume('glimpse-visitors', 'glimpse-visitors-accounts', 'accounts'),
    );
    await check('visitors produces track events to events.inbound', true, () => produce('glimpse-visitors', 'events.inbound'));
    await check('visitors produces to visitors.collected.dlq', true, () => produce('glimpse-visitors', 'visitors.collected.dlq'));
    await check('visitors produces to visitors.collected', false, () => produce('glimpse-visitors', 'visitors.collected'));
    await check('visitors consumes events.inbound', false, () => consume('glimpse-visitors', 'glimpse-visitors', 'events.inbound'));
    await check('playbook consumes visitors.collected', false, () => consume('glimpse-playbook', 'glimpse-playbook', 'visitors.collected'));
    await check('visitors produces identifications to visitors.identified', true, () => produce('glimpse-visitors', 'visitors.identified'));
    await check('webhooks consumes visitors.identified in group glimpse-webhooks-identified', true, () =>
      consume('glimpse-webhooks', 'glimpse-webhooks-identified', 'visitors.identified'),
    );
    await check('webhooks produces to visitors.identified', false, () => produce('glimpse-webhooks', 'visitors.identified'));
    await check('visitors produces company visits to visitors.companies', true, () => produce('glimpse-visitors', 'visitors.companies'));
    await check('webhooks consumes visitors.companies in group glimpse-webhooks-companies', true, () =>
      consume('glimpse-webhooks', 'glimpse-webhooks-companies', 'visitors.companies'),
    );
    await check('webhooks consumes visitors.companies in a group not its own', false, () => consume('glimpse-webhooks', 'someone-else', 'visitors.companies'));
    await check('webhooks produces to visitors.companies', false, () => produce('glimpse-webhooks', 'visitors.companies'));
    await check('gateway produces to visitors.companies', false, () => produce('glimpse-gateway', 'visitors.companies'));
    await check('visitors produces segment alerts to visitors.segments', true, () => produce('glimpse-visitors', 'visitors.segments'));
    await check('webhooks consumes visitors.segments in group glimpse-webhooks-segments', true, () =>
      consume('glimpse-webhooks', 'glimpse-webhooks-segments', 'visitors.segments'),
    );
    await check('webhooks consumes visitors.segments in a group not its own', false, () => consume('glimpse-webhooks', 'someone-else', 'visitors.segments'));
    await check('webhooks produces to visitors.segments', false, () => produce('glimpse-webhooks', 'visitors.segments'));
    // Dead letters: each consumer writes its own dead-letter topic and no other's.
    await check('webhooks consumes playbook.effects in group glimpse-webhooks', true, () =>
      consume('glimpse-webhooks', 'glimpse-webhooks', 'playbook.effects'),
    );
    await check('webhooks produces to webhooks.dlq', true, () => produce('glimpse-webhooks', 'webhooks.dlq'));
    await check('webhooks produces to events.inbound.dlq', false, () => produce('glimpse-webhooks', 'events.inbound.dlq'));
    await check('webhooks produces to visitors.collected.dlq', false, () => produce('glimpse-webhooks', 'visitors.collected.dlq'));
    await check('playbook produces to webhooks.dlq', false, () => produce('glimpse-playbook', 'webhooks.dlq'));
    await check('visitors produces to webhooks.dlq', false, () => produce('glimpse-visitors', 'webhooks.dlq'));
    await check('webhooks consumes webhooks.dlq', false, () => consume('glimpse-webhooks', 'glimpse-webhooks', 'webhooks.dlq'));
    await check('gateway produces to visitors.identified', false, () => produce('glimpse-gateway', 'visitors.identified'));
    await check('keda reads the lag of glimpse-playbook', true, () => lag('glimpse-keda'));
    await check('keda reads the lag of glimpse-visitors', true, () => lag('glimpse-keda', 'glimpse-visitors', 'visitors.collected'));
    await check('keda produces to events.inbound', false, () => produce('glimpse-keda', 'events.inbound'));
    await check('gateway with a wrong password connects', false, async () => {
      const p = client('glimpse-gateway', 'wrong').producer();
      await p.connect();
      await p.disconnect();
    });
  } finally {
    if (broker) {
      process.kill(broker.pid, 'SIGTERM');
      await new Promise((r) => (broker.exitCode !== null ? r() : broker.once('exit', r)));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log('\ncheck                                                        expected  got');
  for (const r of results) console.log(`${r.pass ? 'ok  ' : 'FAIL'} ${r.what.padEnd(56)} ${r.expected.padEnd(9)} ${r.got}`);
  const failed = results.filter((r) => !r.pass).length;
  console.log(`\ndeploy:smoke:kafka: ${results.length - failed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`deploy:smoke:kafka failed: ${err.message}`);
  process.exit(1);
});
