// What the rendered cluster must hold beyond schema validity: Kafka as topics.json defines it, users
// and ACLs that match what each service does, the consumer's scaling bound, spread, shutdown and
// network rules on every workload, a connection budget that fits, and every Secret a pod reads
// provided by both the External Secrets path and deploy/plain-secrets.sh.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import topicsJson from '../../shared/messaging/src/topics.json';
import { connectionBudget } from './lib/budget';
import { find, one, render, REPO, type K8sObject } from './lib/render';
import { allowed, podsOf, type Pod } from './lib/network';
import { environment, externalSecretKeys, secretRefs, workloads } from './lib/workloads';

const OVERLAYS = ['overlays/dev', 'overlays/prod'];
const SERVICES = ['gateway', 'playbook', 'enrichment', 'webhooks', 'visitors'];
/** The internal services' metrics port (METRICS_PORT): the only one the monitoring namespace may reach. */
const METRICS_PORT = 9464;
const topics = Object.values(topicsJson.topics);
const inbound = topicsJson.topics.eventsInbound;
const collected = topicsJson.topics.visitorsCollected;
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(OVERLAYS)('%s', (overlay) => {
  const objects = render(overlay);
  const glimpse = objects.filter((o) => o.metadata.namespace === 'glimpse');

  it('when the topics are rendered, then they are exactly those of topics.json, replicated 3 times with 2 in sync', () => {
    const rendered = find(objects, 'KafkaTopic');
    expect(rendered.map((t) => t.spec.topicName ?? t.metadata.name).sort()).toEqual(topics.map((t) => t.name).sort());
    for (const t of topics) {
      const k = rendered.find((r) => (r.spec.topicName ?? r.metadata.name) === t.name)!;
      expect({ name: t.name, partitions: k.spec.partitions }).toEqual({ name: t.name, partitions: t.partitions });
      for (const [key, value] of Object.entries(t.config))
        expect({ topic: t.name, key, value: String(k.spec.config[key]) }).toEqual({ topic: t.name, key, value });
      expect(k.spec.replicas).toBe(3);
      expect(k.spec.config['min.insync.replicas']).toBe(2);
    }
  });

  it('when raw events, effects, identifications or their dead letters are written, then the cluster deletes them within 24 h (segment roll + retention + check interval + delete delay)', () => {
    const kafka = one(objects, 'Kafka', 'glimpse');
    for (const [key, value] of Object.entries(topicsJson.broker)) expect({ key, value: String(kafka.spec.kafka.config[key]) }).toEqual({ key, value });
    const brokerDelay = Number(kafka.spec.kafka.config['log.retention.check.interval.ms']) + Number(kafka.spec.kafka.config['file.delete.delay.ms'] ?? 60_000);
    for (const t of find(objects, 'KafkaTopic').filter((k) => k.spec.config['message.timestamp.type'] === 'LogAppendTime')) {
      expect(Number(t.spec.config['segment.ms']) + Number(t.spec.config['retention.ms']) + brokerDelay).toBeLessThanOrEqual(DAY_MS);
    }
    expect(
      find(objects, 'KafkaTopic')
        .filter((k) => k.spec.config['message.timestamp.type'] === 'LogAppendTime')
        .map((k) => k.metadata.name)
        .sort(),
    ).toEqual([
      'events.inbound',
      'events.inbound.dlq',
      'playbook.effects',
      'visitors.collected',
      'visitors.collected.dlq',
      'visitors.companies',
      'visitors.identified',
      'visitors.segments',
      'webhooks.dlq',
    ]);
  });

  it('when Kafka is described, then it is KRaft with 3 controllers (prod) and 3 brokers, and clients need TLS and SCRAM', () => {
    const pools = find(objects, 'KafkaNodePool');
    const count = (role: string) => pools.filter((p) => p.spec.roles.includes(role)).reduce((s, p) => s + p.spec.replicas, 0);
    expect(count('broker')).toBe(3);
    expect(count('controller')).toBe(overlay === 'overlays/prod' ? 3 : 1);
    const { listeners } = one(objects, 'Kafka', 'glimpse').spec.kafka;
    expect(listeners.map((l: any) => ({ tls: l.tls, auth: l.authentication?.type }))).toEqual(listeners.map(() => ({ tls: true, auth: 'scram-sha-512' })));
  });

  it('when a service talks to Kafka, then it logs in as its own KafkaUser, whose ACLs name only topics.json topics and its group', () => {
    const topicNames = new Set(topics.map((t) => t.name));
    const users = new Map(find(objects, 'KafkaUser').map((u) => [u.metadata.name, u]));
    const kafkaClients = workloads(glimpse).filter((w) => environment(objects, w).KAFKA_SASL_USERNAME);
    expect(kafkaClients.map((w) => w.object.metadata.name).sort()).toEqual(['enrichment', 'gateway', 'playbook', 'visitors', 'webhooks']);
    for (const w of kafkaClients) {
      const env = environment(objects, w);
      expect(env.KAFKA_SASL_USERNAME).toBe(`glimpse-${w.object.metadata.name}`);
      expect(users.has(env.KAFKA_SASL_USERNAME!)).toBe(true);
    }
    const playbookEnv = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === 'playbook')!,
    );
    const webhooksEnv = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === 'webhooks')!,
    );
    const enrichmentEnv = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === 'enrichment')!,
    );
    const visitorsEnv = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === 'visitors')!,
    );
    const groupsOf: Record<string, (string | undefined)[]> = {
      'glimpse-playbook': [playbookEnv.PLAYBOOK_GROUP_ID, playbookEnv.PLAYBOOK_ACCOUNTS_GROUP_ID ?? `${playbookEnv.PLAYBOOK_GROUP_ID}-accounts`],
      'glimpse-keda': [playbookEnv.PLAYBOOK_GROUP_ID, visitorsEnv.VISITORS_GROUP_ID],
      'glimpse-visitors': [visitorsEnv.VISITORS_GROUP_ID, visitorsEnv.VISITORS_ACCOUNTS_GROUP_ID],
      'glimpse-webhooks': [
        webhooksEnv.WEBHOOKS_GROUP_ID,
        webhooksEnv.WEBHOOKS_ACCOUNTS_GROUP_ID,
        webhooksEnv.WEBHOOKS_IDENTIFIED_GROUP_ID,
        webhooksEnv.WEBHOOKS_COMPANIES_GROUP_ID,
        webhooksEnv.WEBHOOKS_SEGMENTS_GROUP_ID,
      ],
      'glimpse-enrichment': [enrichmentEnv.ENRICHMENT_ACCOUNTS_GROUP_ID],
    };
    for (const u of users.values()) {
      for (const acl of u.spec.authorization.acls) {
        if (acl.resource.type === 'topic') expect(topicNames).toContain(acl.resource.name);
        if (acl.resource.type === 'group')
          expect({ user: u.metadata.name, group: groupsOf[u.metadata.name]?.includes(acl.resource.name) }).toEqual({ user: u.metadata.name, group: true });
        expect(acl.resource.patternType).toBe('literal');
        expect(acl.operations).not.toContain('All');
      }
    }
    const ops = (user: string, topic: string) =>
      users
        .get(user)!
        .spec.authorization.acls.filter((a: any) => a.resource.name === topic)
        .flatMap((a: any) => a.operations)
        .sort();
    expect(ops('glimpse-gateway', inbound.name)).toEqual(['Describe', 'Write']);
    expect(ops('glimpse-playbook', inbound.name)).toEqual(['Describe', 'Read']);
    expect(ops('glimpse-keda', inbound.name)).toEqual(['Describe']);
    expect(ops('glimpse-webhooks', topicsJson.topics.playbookEffects.name)).toEqual(['Describe', 'Read']);
    expect(ops('glimpse-webhooks', inbound.name)).toEqual([]);
    // The identity outbox: the gateway writes the accounts topic, the playbook service reads it.
    const accounts = topicsJson.topics.accounts.name;
    expect(ops('glimpse-gateway', accounts)).toEqual(['Describe', 'Write']);
    expect(ops('glimpse-playbook', accounts)).toEqual(['Describe', 'Read']);
    expect(ops('glimpse-playbook', `${playbookEnv.PLAYBOOK_GROUP_ID}-accounts`)).toEqual(['Describe', 'Read']);
    // Account deletions: webhooks and enrichment read the accounts topic, each in a group of its own.
    expect(ops('glimpse-webhooks', accounts)).toEqual(['Describe', 'Read']);
    expect(ops('glimpse-webhooks', webhooksEnv.WEBHOOKS_ACCOUNTS_GROUP_ID!)).toEqual(['Describe', 'Read']);
    expect(ops('glimpse-enrichment', accounts)).toEqual(['Describe', 'Read']);
    expect(ops('glimpse-enrichment', enrichmentEnv.ENRICHMENT_ACCOUNTS_GROUP_ID!)).toEqual(['Describe', 'Read']);
    expect(
      users
        .get('glimpse-enrichment')!
        .spec.authorization.acls.map((a: any) => a.resource.name)
        .sort(),
    ).toEqual([accounts, enrichmentEnv.ENRICHMENT_ACCOUNTS_GROUP_ID].sort());
    // What the tag collects: the gateway writes it; the visitors service reads it in its group, reads
    // account deletions in another, writes identified visitors' track events and its dead letters.
    const dlq = topicsJson.topics.visitorsDeadLetter.name;
    const identified = topicsJson.topics.visitorsIdentified.name;
    const companies = topicsJson.topics.visitorsCompanies.name;
    const segments = topicsJson.topics.visitorsSegments.name;
    expect(visitorsEnv.VISITORS_GROUP_ID).toBe('glimpse-visitors');
    expect(visitorsEnv.VISITORS_ACCOUNTS_GROUP_ID).toBe('glimpse-visitors-accounts');
    expect(ops('glimpse-gateway', collected.name)).toEqual(['Describe', 'Write']);
    const acls = (user: string) =>
      users
        .get(user)!
        .spec.authorization.acls.map((a: any) => `${a.resource.type} ${a.resource.name}: ${[...a.operations].sort().join(',')}`)
        .sort();
    expect(acls('glimpse-visitors')).toEqual(
      [
        `group ${visitorsEnv.VISITORS_ACCOUNTS_GROUP_ID}: Describe,Read`,
        `group ${visitorsEnv.VISITORS_GROUP_ID}: Describe,Read`,
        `topic ${accounts}: Describe,Read`,
        `topic ${inbound.name}: Describe,Write`,
        `topic ${collected.name}: Describe,Read`,
        `topic ${dlq}: Describe,Write`,
        `topic ${identified}: Describe,Write`,
        `topic ${companies}: Describe,Write`,
        `topic ${segments}: Describe,Write`,
      ].sort(),
    );
    // Identifications, companies' visits and segment alerts: the visitors service writes them; the webhooks service
    // reads each in a group of its own (visitor.identified, company.visited), effects and account
    // deletions in the others; nobody else.
    expect(webhooksEnv.WEBHOOKS_IDENTIFIED_GROUP_ID).toBe('glimpse-webhooks-identified');
    expect(webhooksEnv.WEBHOOKS_COMPANIES_GROUP_ID).toBe('glimpse-webhooks-companies');
    expect(webhooksEnv.WEBHOOKS_SEGMENTS_GROUP_ID).toBe('glimpse-webhooks-segments');
    expect(acls('glimpse-webhooks')).toEqual(
      [
        `group ${webhooksEnv.WEBHOOKS_ACCOUNTS_GROUP_ID}: Describe,Read`,
        `group ${webhooksEnv.WEBHOOKS_GROUP_ID}: Describe,Read`,
        `group ${webhooksEnv.WEBHOOKS_IDENTIFIED_GROUP_ID}: Describe,Read`,
        `group ${webhooksEnv.WEBHOOKS_COMPANIES_GROUP_ID}: Describe,Read`,
        `group ${webhooksEnv.WEBHOOKS_SEGMENTS_GROUP_ID}: Describe,Read`,
        `topic ${accounts}: Describe,Read`,
        `topic ${topicsJson.topics.playbookEffects.name}: Describe,Read`,
        `topic ${identified}: Describe,Read`,
        `topic ${companies}: Describe,Read`,
        `topic ${segments}: Describe,Read`,
        `topic ${topicsJson.topics.webhooksDeadLetter.name}: Describe,Write`,
      ].sort(),
    );
    for (const u of users.values()) {
      const expected = { 'glimpse-visitors': ['Describe', 'Write'], 'glimpse-webhooks': ['Describe', 'Read'] }[u.metadata.name as string] ?? [];
      for (const topic of [identified, companies, segments])
        expect({ user: u.metadata.name, topic, ops: ops(u.metadata.name, topic) }).toEqual({ user: u.metadata.name, topic, ops: expected });
    }
    expect(acls('glimpse-keda')).toEqual(
      [
        `group ${playbookEnv.PLAYBOOK_GROUP_ID}: Describe`,
        `group ${visitorsEnv.VISITORS_GROUP_ID}: Describe`,
        `topic ${inbound.name}: Describe`,
        `topic ${collected.name}: Describe`,
      ].sort(),
    );
    // Nobody else reads what the tag collects.
    for (const u of users.values())
      if (u.metadata.name !== 'glimpse-visitors')
        expect({ user: u.metadata.name, reads: ops(u.metadata.name, collected.name).includes('Read') }).toEqual({ user: u.metadata.name, reads: false });
  });

  it('when a consumer dead-letters a message, then it writes its own dead-letter topic, which no other user may write and nobody may read', () => {
    const users = find(objects, 'KafkaUser');
    const ownerOf: Record<string, string> = {
      [topicsJson.topics.eventsDeadLetter.name]: 'glimpse-playbook',
      [topicsJson.topics.visitorsDeadLetter.name]: 'glimpse-visitors',
      [topicsJson.topics.webhooksDeadLetter.name]: 'glimpse-webhooks',
    };
    // Every dead-letter topic of topics.json is in the table (a new one must name its one writer).
    expect(
      topics
        .map((t) => t.name)
        .filter((name) => name.endsWith('.dlq'))
        .sort(),
    ).toEqual(Object.keys(ownerOf).sort());
    for (const [topic, owner] of Object.entries(ownerOf)) {
      const granted = users.flatMap((u) =>
        u.spec.authorization.acls
          .filter((a: any) => a.resource.type === 'topic' && a.resource.name === topic)
          .map((a: any) => `${u.metadata.name}: ${[...a.operations].sort().join(',')}`),
      );
      expect({ topic, granted }).toEqual({ topic, granted: [`${owner}: Describe,Write`] });
    }
    // The webhooks service in particular: the playbook service's dead letters are not its to write.
    const webhooks = users.find((u) => u.metadata.name === 'glimpse-webhooks')!;
    expect(webhooks.spec.authorization.acls.filter((a: any) => a.resource.name === topicsJson.topics.eventsDeadLetter.name)).toEqual([]);
  });

  it.each([
    ['playbook', inbound, 'PLAYBOOK_GROUP_ID'],
    ['visitors', collected, 'VISITORS_GROUP_ID'],
  ] as const)('when the %s consumer is scaled, then KEDA reads its group lag on its topic, from 1 to at most the partition count', (name, topic, groupVar) => {
    const so = one(objects, 'ScaledObject', name);
    const trigger = so.spec.triggers[0];
    const env = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === name)!,
    );
    expect(so.spec.triggers).toHaveLength(1);
    expect(trigger.type).toBe('kafka');
    expect(trigger.metadata).toMatchObject({
      topic: topic.name,
      consumerGroup: env[groupVar],
      bootstrapServers: env.KAFKA_BROKERS,
      allowIdleConsumers: 'false',
      ensureEvenDistributionOfPartitions: 'true',
    });
    expect(so.spec.scaleTargetRef.name).toBe(name);
    expect(so.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(so.spec.maxReplicaCount).toBeLessThanOrEqual(topic.partitions);
    if (overlay === 'overlays/prod') expect(so.spec.maxReplicaCount).toBe(topic.partitions);
    const auth = one(objects, 'TriggerAuthentication', trigger.authenticationRef.name);
    expect(auth.spec.secretTargetRef.map((r: any) => r.parameter).sort()).toEqual(['ca', 'password', 'sasl', 'tls', 'username']);
    expect(auth.spec.secretTargetRef.every((r: any) => r.name === 'glimpse-kafka-keda')).toBe(true);
    const deployment = one(objects, 'Deployment', name);
    expect(deployment.spec.replicas).toBeUndefined();
    // Replace rather than surge, so the group never holds more members than partitions.
    expect(deployment.spec.strategy.rollingUpdate.maxSurge).toBe(0);
  });

  it('when pods are scheduled, then every Deployment spreads over zones and hosts, and each service drains on preStop', () => {
    for (const d of find(glimpse, 'Deployment')) {
      const keys = (d.spec.template.spec.topologySpreadConstraints ?? []).map((c: any) => c.topologyKey);
      expect({
        deployment: d.metadata.name,
        keys: keys.filter((k: string) => k === 'topology.kubernetes.io/zone' || k === 'kubernetes.io/hostname').length >= 2,
      }).toEqual({ deployment: d.metadata.name, keys: true });
    }
    for (const name of SERVICES) {
      const pod = one(objects, 'Deployment', name).spec.template.spec;
      expect({ name, preStop: Boolean(pod.containers[0].lifecycle?.preStop) }).toEqual({ name, preStop: true });
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(5 + 15);
      expect(pod.containers[0].resources.requests).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
    }
  });

  it('when the namespace is locked down, then a default deny covers it and every workload has its own policy for both directions', () => {
    const policies = find(glimpse, 'NetworkPolicy');
    const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 || Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0);
    expect(deny?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const selects = (p: K8sObject, labels: Record<string, string>) =>
      Object.entries(p.spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) && Object.keys(p.spec.podSelector.matchLabels ?? {}).length > 0;
    for (const w of workloads(glimpse)) {
      const labels = w.object.spec.template.metadata.labels;
      const own = policies.filter((p) => p !== deny && selects(p, labels));
      expect({ workload: w.object.metadata.name, policies: own.length }).toEqual({ workload: w.object.metadata.name, policies: 1 });
      expect(own[0]!.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    }
    const egressPorts = (name: string) =>
      policies
        .find((p) => p.metadata.name === name)!
        .spec.egress.flatMap((e: any) => e.ports.map((p: any) => p.port ?? 'any'))
        .sort((a: number, b: number) => a - b);
    expect(egressPorts('gateway')).toEqual([53, 53, 5432, 6379, 8081, 8082, 8083, 8084, 9093]);
    // Webhooks: enrichment (visitor.identified's person details), and out to its endpoints on any
    // port, but only to public addresses.
    expect(egressPorts('webhooks')).toEqual([53, 53, 5432, 8081, 9093, 'any']);
    const toEnrichment = policies
      .find((p) => p.metadata.name === 'webhooks')!
      .spec.egress.find((e: any) => e.to.some((t: any) => t.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'enrichment'));
    expect(toEnrichment.ports).toEqual([{ port: 8081, protocol: 'TCP' }]);
    const webhooksEnv = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === 'webhooks')!,
    );
    expect(webhooksEnv.ENRICHMENT_URL).toBe('http://enrichment.glimpse.svc:8081');
    const outward = policies.find((p) => p.metadata.name === 'webhooks')!.spec.egress.find((e: any) => e.to.some((t: any) => t.ipBlock));
    const blocks = outward.to.map((t: any) => t.ipBlock);
    expect(blocks.find((b: any) => b.cidr === '0.0.0.0/0').except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16']),
    );
    expect(blocks.find((b: any) => b.cidr === '::/0').except).toEqual(expect.arrayContaining(['::1/128', 'fc00::/7', 'fe80::/10']));
    expect(egressPorts('playbook')).toEqual([53, 53, 5432, 9093]);
    expect(egressPorts('enrichment')).toEqual([53, 53, 5432, 9093]);
    expect(egressPorts('visitors')).toEqual([53, 53, 5432, 9093]);
    expect(egressPorts('migrate')).toEqual([53, 53, 5432]);
    // The internal services take calls from the gateway (enrichment from webhooks too) on their
    // port, and scrapes from Prometheus on their metrics port only (never the port of /internal).
    for (const [name, port, callers] of [
      ['playbook', 8082, ['gateway']],
      ['enrichment', 8081, ['gateway', 'webhooks']],
      ['webhooks', 8083, ['gateway']],
      ['visitors', 8084, ['gateway']],
    ] as const) {
      const ingress = policies.find((p) => p.metadata.name === name)!.spec.ingress;
      const from = ingress.map((i: any) => ({
        peer: i.from[0].podSelector?.matchLabels?.['app.kubernetes.io/component'] ?? i.from[0].namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'],
        ports: i.ports.map((p: any) => p.port),
      }));
      expect({ name, from }).toEqual({ name, from: [...callers.map((peer) => ({ peer, ports: [port] })), { peer: 'monitoring', ports: [METRICS_PORT] }] });
      const container = one(objects, 'Deployment', name).spec.template.spec.containers[0];
      expect(container.ports).toEqual([
        { name: 'http', containerPort: port },
        { name: 'metrics', containerPort: METRICS_PORT },
      ]);
      expect(
        environment(
          objects,
          workloads(glimpse).find((w) => w.object.metadata.name === name)!,
        ).METRICS_PORT,
      ).toBe(String(METRICS_PORT));
      expect(one(objects, 'Service', name).spec.ports).toEqual([
        { name: 'http', port, targetPort: 'http' },
        { name: 'metrics', port: METRICS_PORT, targetPort: 'metrics' },
      ]);
    }
    // Kafka's listener and the Pooler admit every service that uses them.
    const peers = one(objects, 'Kafka', 'glimpse').spec.kafka.listeners[0].networkPolicyPeers;
    expect(peers[0].podSelector.matchExpressions[0].values.sort()).toEqual(['enrichment', 'gateway', 'playbook', 'visitors', 'webhooks']);
    const pooler = policies.find((p) => p.spec.podSelector.matchLabels?.['cnpg.io/poolerName'] === 'glimpse-pg-pooler-rw')!;
    expect(pooler.spec.ingress[0].from[0].podSelector.matchExpressions[0].values.sort()).toEqual(['enrichment', 'gateway', 'playbook', 'visitors', 'webhooks']);
  });

  it('when Prometheus looks for targets, then every service has a ServiceMonitor: the internal services on their metrics port, the gateway on its http port', () => {
    for (const name of SERVICES) {
      const svc = one(objects, 'Service', name);
      const sm = find(objects, 'ServiceMonitor').find((m) => Object.entries(m.spec.selector.matchLabels).every(([k, v]) => svc.metadata.labels?.[k] === v));
      const port = name === 'gateway' ? 'http' : 'metrics';
      expect({ name, port: sm?.spec.endpoints.map((e: any) => e.port), path: sm?.spec.endpoints[0].path }).toEqual({ name, port: [port], path: '/metrics' });
    }
  });

  it('when every service runs at its maximum replicas, then the Postgres connection budget fits', () => {
    const b = connectionBudget(objects);
    expect(b.clients.map((c) => c.service).sort()).toEqual([...SERVICES].sort());
    expect(b.clientConnections).toBeLessThanOrEqual(b.poolerClientLimit);
    expect(b.serverConnections).toBeLessThanOrEqual(b.maxConnections);
    const pooler = find(objects, 'Pooler')[0]!;
    for (const role of one(objects, 'Cluster', 'glimpse-pg').spec.managed.roles.filter((r: any) => r.login)) {
      expect({ role: role.name, fits: role.connectionLimit >= pooler.spec.instances * Number(pooler.spec.pgbouncer.parameters.default_pool_size) }).toEqual({
        role: role.name,
        fits: true,
      });
    }
  });

  it('when each service connects to Postgres, then it uses its own role and the migration Job a separate one', () => {
    const dbSecret = (w: { pod: any }) => w.pod.containers[0].env.find((e: any) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef.name;
    const byService = Object.fromEntries(
      workloads(glimpse)
        .filter((w) => w.pod.containers[0].env?.some((e: any) => e.name === 'DATABASE_URL'))
        .map((w) => [w.object.metadata.name, dbSecret(w)]),
    );
    expect(byService).toEqual({
      gateway: 'glimpse-db-gateway',
      playbook: 'glimpse-db-playbook',
      enrichment: 'glimpse-db-enrichment',
      webhooks: 'glimpse-db-webhooks',
      visitors: 'glimpse-db-visitors',
    });
    const migrate = render(`${overlay}/migrate`);
    expect(dbSecret(workloads(migrate)[0]!)).toBe('glimpse-db-migrate');
    const cluster = one(objects, 'Cluster', 'glimpse-pg');
    expect(cluster.spec.bootstrap.initdb).toMatchObject({ owner: 'glimpse_migrate', secret: { name: 'glimpse-db-migrate' } });
    expect(
      cluster.spec.managed.roles
        .filter((r: any) => r.login)
        .map((r: any) => r.passwordSecret.name)
        .sort(),
    ).toEqual(['glimpse-db-enrichment', 'glimpse-db-gateway', 'glimpse-db-playbook', 'glimpse-db-visitors', 'glimpse-db-webhooks']);
    expect(cluster.spec.managed.roles.find((r: any) => r.name === 'glimpse_visitors')).toMatchObject({
      login: true,
      passwordSecret: { name: 'glimpse-db-visitors' },
    });
  });

  it('when the gateway calls the visitors service and the tag collects, then VISITORS_URL names its Service and the ingress routes /collect and /g.js', () => {
    const env = environment(
      objects,
      workloads(glimpse).find((w) => w.object.metadata.name === 'gateway')!,
    );
    const svc = one(objects, 'Service', 'visitors');
    expect(env.VISITORS_URL).toBe(`http://visitors.glimpse.svc:${svc.spec.ports[0].port}`);
    expect(
      environment(
        objects,
        workloads(glimpse).find((w) => w.object.metadata.name === 'visitors')!,
      ).VISITORS_PORT,
    ).toBe(String(svc.spec.ports[0].port));
    const paths = one(objects, 'Ingress', 'gateway').spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.path));
    expect(paths).toEqual(expect.arrayContaining(['/collect', '/g.js', '/events', '/visitors', '/account']));
  });

  it('when a service refuses a development secret in production, then its pod reads the real one from a Secret', () => {
    const fromSecret = (service: string, variable: string) =>
      workloads(glimpse)
        .find((w) => w.object.metadata.name === service)!
        .pod.containers[0].env.find((e: any) => e.name === variable)?.valueFrom?.secretKeyRef?.name;
    expect({
      gatewayInternal: fromSecret('gateway', 'INTERNAL_TOKEN'),
      linkTokens: fromSecret('gateway', 'LINK_TOKEN_SECRET'),
      erasureKey: fromSecret('visitors', 'VISITORS_ERASURE_KEY'),
      playbookErasureKey: fromSecret('playbook', 'PLAYBOOK_ERASURE_KEY'),
      webhooksSecretKey: fromSecret('webhooks', 'WEBHOOKS_SECRET_KEY'),
      billingKey: fromSecret('enrichment', 'ENRICHMENT_BILLING_KEY'),
    }).toEqual({
      gatewayInternal: 'glimpse-internal-token',
      linkTokens: 'glimpse-link-token-secret',
      erasureKey: 'glimpse-visitors-erasure-key',
      playbookErasureKey: 'glimpse-playbook-erasure-key',
      webhooksSecretKey: 'glimpse-webhooks-secret-key',
      billingKey: 'glimpse-enrichment-billing-key',
    });
  });

  it('when the services call each other, then each caller reads only its own internal token and each called service only the digests', () => {
    const secretKeys = (service: string) =>
      Object.fromEntries(
        workloads(glimpse)
          .find((w) => w.object.metadata.name === service)!
          .pod.containers[0].env.filter((e: any) => e.valueFrom?.secretKeyRef?.name === 'glimpse-internal-token')
          .map((e: any) => [e.name, e.valueFrom.secretKeyRef.key]),
      );
    expect(Object.fromEntries(SERVICES.map((s) => [s, secretKeys(s)]))).toEqual({
      gateway: { INTERNAL_TOKEN: 'GATEWAY_INTERNAL_TOKEN' },
      playbook: { INTERNAL_TOKENS: 'INTERNAL_TOKENS' },
      enrichment: { INTERNAL_TOKENS: 'INTERNAL_TOKENS' },
      webhooks: { INTERNAL_TOKEN: 'WEBHOOKS_INTERNAL_TOKEN', INTERNAL_TOKENS: 'INTERNAL_TOKENS' },
      visitors: { INTERNAL_TOKENS: 'INTERNAL_TOKENS' },
    });
  });

  it('when the images are named, then prod pins every one by digest', () => {
    const images = [...objects, ...render(`${overlay}/migrate`), ...render(`${overlay}/import`)].flatMap((o) =>
      workloads([o]).flatMap((w) => w.pod.containers.map((c: any) => c.image as string)),
    );
    expect(images.length).toBeGreaterThanOrEqual(6);
    expect(images.filter((i) => i.includes('/glimpse/visitors')).length).toBe(1);
    if (overlay === 'overlays/prod') for (const image of images) expect(image).toMatch(/@sha256:[0-9a-f]{64}$/);
    else for (const image of images) expect(image).toMatch(/[:@]/);
  });
});

describe('secrets', () => {
  const needed = (objects: K8sObject[]) => secretRefs(objects).filter((r) => r.namespace === 'glimpse');

  it('when prod is applied, then External Secrets makes every Secret and key the pods and operators read', () => {
    const objects = [...render('overlays/prod'), ...render('overlays/prod/migrate'), ...render('overlays/prod/import')];
    const made = externalSecretKeys(objects);
    const missing = needed(objects).filter((r) => !made.has(`glimpse/${r.name}`) || (r.key !== undefined && !made.get(`glimpse/${r.name}`)!.has(r.key)));
    expect(missing).toEqual([]);
  });

  it('when dev is set up by hand, then deploy/plain-secrets.sh makes every Secret and key the pods and operators read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plain-secrets-'));
    const log = path.join(dir, 'applied.jsonl');
    const env = { ...process.env, PATH: `${path.join(__dirname, 'fixtures', 'bin')}${path.delimiter}${process.env.PATH}`, FAKE_KUBECTL_LOG: log };
    for (const step of ['passwords', 'cluster']) execFileSync('bash', [path.join(REPO, 'deploy', 'plain-secrets.sh'), step], { env, stdio: 'pipe' });
    const applied = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    fs.rmSync(dir, { recursive: true, force: true });
    const made = new Map(applied.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, new Set(Object.keys(s.data))]));
    const objects = [...render('overlays/dev'), ...render('overlays/dev/migrate'), ...render('overlays/dev/import')];
    const missing = needed(objects).filter((r) => !made.has(`glimpse/${r.name}`) || (r.key !== undefined && !made.get(`glimpse/${r.name}`)!.has(r.key)));
    expect(missing).toEqual([]);
    const db = applied.find((s) => s.metadata.name === 'glimpse-db-gateway');
    expect(Buffer.from(db.data.DATABASE_URL, 'base64').toString()).toMatch(
      /^postgresql:\/\/glimpse_gateway:[0-9a-f]{64}@glimpse-pg-pooler-rw\.glimpse\.svc:5432\/glimpse\?sslmode=verify-full$/,
    );
    expect(Buffer.from(applied.find((s) => s.metadata.name === 'glimpse-ca-bundle').data['ca.crt'], 'base64').toString()).toMatch(/kafka[\s\S]*postgres/);
  });
});

describe.each(OVERLAYS)('%s: the import Job', (overlay) => {
  const objects = render(overlay);
  const glimpse = objects.filter((o) => o.metadata.namespace === 'glimpse');
  const job = render(`${overlay}/import`);
  const [importJob] = workloads(job);
  const policies = find([...glimpse, ...job], 'NetworkPolicy');
  const importPod = podsOf(job)[0]!;
  // The Pooler's and the instances' pods, as CloudNativePG labels them (they are not workloads here).
  const pooler: Pod = { name: 'Pooler/glimpse-pg-pooler-rw', namespace: 'glimpse', labels: { 'cnpg.io/poolerName': 'glimpse-pg-pooler-rw' }, ports: {} };
  const primary: Pod = {
    name: 'Cluster/glimpse-pg',
    namespace: 'glimpse',
    labels: { 'cnpg.io/cluster': 'glimpse-pg', 'cnpg.io/instanceRole': 'primary', 'cnpg.io/podRole': 'instance' },
    ports: {},
  };

  it('when it is rendered, then it is one Job in the namespace that runs the CLI from the gateway image once, as a non-root user on a read-only root', () => {
    expect(job.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'Job/glimpse-import',
      'NetworkPolicy/import',
      'NetworkPolicy/postgres-pooler-import',
    ]);
    expect(job.every((o) => o.metadata.namespace === 'glimpse')).toBe(true);
    const container = importJob!.pod.containers[0];
    expect(container.command).toEqual(['node', 'tools/cli/bin/glimpse.js']);
    expect(container.args.slice(0, 2)).toEqual(['import', 'persons']);
    expect(container.image).toBe(one(objects, 'Deployment', 'gateway').spec.template.spec.containers[0].image);
    expect(importJob!.object.spec.backoffLimit).toBe(0);
    expect(importJob!.pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it("when it connects to Postgres, then it is as a service's role through the Pooler, never the migration role, and no operator API is named", () => {
    const env = importJob!.pod.containers[0].env;
    const secrets = env.filter((e: any) => e.valueFrom?.secretKeyRef).map((e: any) => [e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key]);
    expect(secrets).toEqual([['ENRICHMENT_DATABASE_URL', 'glimpse-db-enrichment', 'DATABASE_URL']]);
    expect(env.some((e: any) => e.name === 'GLIMPSE_URL' || e.name === 'GLIMPSE_OPERATOR_TOKEN')).toBe(false);
    expect(environment(job, importJob!).NODE_EXTRA_CA_CERTS).toBe('/etc/glimpse/ca/ca.crt');
  });

  it('when its pod opens connections, then it reaches the Pooler on 5432 and nothing else; without its policies the Pooler refuses it', () => {
    expect(allowed(policies, importPod, pooler, 5432)).toBe(true);
    expect(allowed(policies, importPod, primary, 5432)).toBe(false);
    const reached = podsOf(glimpse).flatMap((to) =>
      [5432, 6379, 8080, 8081, 8082, 8083, 8084, 9093, METRICS_PORT]
        .filter((port) => allowed(policies, importPod, to, port))
        .map((port) => `${to.name}:${port}`),
    );
    expect(reached).toEqual([]);
    // Nothing connects to it.
    expect(podsOf(glimpse).filter((from) => allowed(policies, from, importPod, 8080))).toEqual([]);
    // The overlay alone (the Job not applied) admits no import pod: the way in comes and goes with the Job.
    expect(allowed(find(glimpse, 'NetworkPolicy'), importPod, pooler, 5432)).toBe(false);
  });
});
