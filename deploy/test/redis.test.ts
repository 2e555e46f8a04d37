// The Redis Cluster as rendered for each overlay: six nodes in cluster mode with AUTH and
// noeviction, maxmemory below the memory limit, nothing persisted but the cluster's own
// configuration, stable names the gateway lists exactly, the Job that forms it, and network rules
// that let through exactly the gateway, the nodes themselves and the Job.
import { allowed, podsOf } from './lib/network';
import { find, one, render, type K8sObject } from './lib/render';
import { environment, workloads } from './lib/workloads';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const capacity = require('../../scripts/capacity.js');

const OVERLAYS = ['base/redis', 'overlays/dev', 'overlays/prod'];
const NAMESPACE = 'glimpse';
const MiB = 1024 * 1024;

/** Kubernetes memory quantity → bytes (the forms deploy/k8s uses). */
function bytes(quantity: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity);
  if (!m) throw new Error(`unexpected quantity ${quantity}`);
  const unit = { Ki: 1024, Mi: MiB, Gi: 1024 * MiB, Ti: 1024 * 1024 * MiB, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

/** redis.conf directives → their arguments (the last occurrence wins, as in Redis). */
function directives(conf: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of conf.split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const [name, ...args] = t.split(/\s+/);
    out.set(name!.toLowerCase(), args.join(' '));
  }
  return out;
}

/** The default a script gives a variable: `NAME=${VAR:-default}`. */
function scriptDefault(script: string, variable: string): string {
  const m = new RegExp(`\\$\\{${variable}:-([^}]*)\\}`).exec(script);
  if (!m) throw new Error(`no default for ${variable}`);
  return m[1]!;
}

describe.each(OVERLAYS)('%s: the Redis Cluster', (dir) => {
  const objects = render(dir);
  const sts = one(objects, 'StatefulSet', 'redis-cluster');
  const pod = sts.spec.template.spec;
  const container = pod.containers.find((c: any) => c.name === 'redis');
  const env = new Map<string, any>(container.env.map((e: any) => [e.name, e]));
  const scriptsVolume = pod.volumes.find((v: any) => v.configMap);
  const configMap = one(objects, 'ConfigMap', scriptsVolume.configMap.name);
  const conf = directives(configMap.data['redis.conf']);
  const start: string = configMap.data['start.sh'];
  const createScript: string = configMap.data['create-cluster.sh'];
  const scriptsMount = container.volumeMounts.find((m: any) => m.name === scriptsVolume.name).mountPath;
  const service = one(objects, 'Service', sts.spec.serviceName);
  const hostnames = Array.from({ length: sts.spec.replicas }, (_, i) => `${sts.metadata.name}-${i}.${service.metadata.name}.${NAMESPACE}.svc:6379`);

  it('when it is deployed, then six nodes run in cluster mode: three masters with one replica each', () => {
    expect(sts.metadata.namespace).toBe(NAMESPACE);
    expect(sts.spec.replicas).toBe(6);
    expect(conf.get('cluster-enabled')).toBe('yes');
    const replicasPerMaster = Number(/--cluster-replicas (\d+)/.exec(createScript)![1]);
    expect(sts.spec.replicas / (1 + replicasPerMaster)).toBe(3);
    // Every node starts at once: none is ready until the Job has formed the cluster of all of them.
    expect(sts.spec.podManagementPolicy).toBe('Parallel');
    expect(container.command).toEqual(['sh', `${scriptsMount}/start.sh`]);
    expect(container.ports.map((p: any) => [p.name, p.containerPort])).toEqual([
      ['redis', 6379],
      ['cluster-bus', 16379],
    ]);
  });

  it('when memory runs out, then writes are refused and nothing is evicted, with maxmemory well below the container limit', () => {
    expect(conf.get('maxmemory-policy')).toBe('noeviction');
    expect(conf.has('maxmemory')).toBe(false); // start.sh sets it from the limit
    const limit = bytes(container.resources.limits.memory);
    expect(container.resources.requests.memory).toBe(container.resources.limits.memory);
    expect(env.get('REDIS_MEMORY_LIMIT_MB').valueFrom.resourceFieldRef).toEqual({ containerName: 'redis', resource: 'limits.memory', divisor: '1Mi' });
    const percent = Number(env.get('REDIS_MAXMEMORY_PERCENT').value);
    expect(start).toMatch(/maxmemory=\$\(\(REDIS_MEMORY_LIMIT_MB \* PERCENT \/ 100\)\)/);
    expect(start).toMatch(/PERCENT=\$\{REDIS_MAXMEMORY_PERCENT:-\d+\}/);
    const maxmemory = Math.floor(((limit / MiB) * percent) / 100) * MiB;
    // Headroom for a replica's output buffer during a full sync, the fork's copy-on-write, fragmentation.
    expect(percent).toBeGreaterThanOrEqual(40);
    expect(percent).toBeLessThanOrEqual(70);
    expect(maxmemory).toBeGreaterThanOrEqual(128 * MiB);
  });

  it('when a node fails, then its replica takes over after a few seconds, for its slots only', () => {
    const timeout = Number(conf.get('cluster-node-timeout'));
    expect(timeout).toBeGreaterThanOrEqual(2000);
    expect(timeout).toBeLessThanOrEqual(10000);
    expect(conf.get('cluster-require-full-coverage')).toBe('no');
    expect(conf.get('cluster-replica-validity-factor')).toBe('0');
  });

  it('when raw copies are written, then nothing is persisted: no RDB, no AOF, replication over the socket, only nodes.conf on a volume', () => {
    expect(conf.get('save')).toBe('""');
    expect(conf.get('appendonly')).toBe('no');
    expect(conf.get('repl-diskless-sync')).toBe('yes');
    expect(conf.get('rdb-del-sync-files')).toBe('yes');
    const mountOf = (path: string) => container.volumeMounts.find((m: any) => m.mountPath === path);
    const claims = (sts.spec.volumeClaimTemplates ?? []).map((c: any) => c.metadata.name);
    // The cluster's configuration (node IDs, addresses, slots) on the claim; Redis' dir on an emptyDir.
    expect(claims).toEqual([mountOf(scriptDefault(start, 'REDIS_CLUSTER_DIR')).name]);
    const dataVolume = pod.volumes.find((v: any) => v.name === mountOf(scriptDefault(start, 'REDIS_DATA_DIR')).name);
    expect(dataVolume.emptyDir).toBeDefined();
    // The generated configuration holds the password: in memory only.
    const runVolume = pod.volumes.find((v: any) => v.name === mountOf(scriptDefault(start, 'REDIS_RUN_DIR')).name);
    expect(runVolume.emptyDir.medium).toBe('Memory');
    expect(sts.spec.persistentVolumeClaimRetentionPolicy.whenDeleted).toBe('Delete');
  });

  it('when clients are redirected, then every node is known by its stable name through the headless Service', () => {
    expect(service.spec.clusterIP).toBe('None');
    expect(service.spec.publishNotReadyAddresses).toBe(true);
    expect(service.spec.selector).toEqual(sts.spec.selector.matchLabels);
    expect(service.spec.ports.map((p: any) => p.port)).toEqual([6379, 16379]);
    expect(conf.get('cluster-preferred-endpoint-type')).toBe('hostname');
    expect(start).toMatch(/^cluster-announce-hostname \$REDIS_ANNOUNCE_HOSTNAME$/m);
    expect(env.get('REDIS_ANNOUNCE_HOSTNAME').value).toBe(`$(POD_NAME).${service.metadata.name}.$(POD_NAMESPACE).svc`);
    expect(env.get('POD_NAME').valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    expect(env.get('POD_NAMESPACE').valueFrom.fieldRef.fieldPath).toBe('metadata.namespace');
  });

  it('when anyone connects, then AUTH is required, with the password of the Secret glimpse-redis for clients and replicas alike', () => {
    expect(env.get('REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'glimpse-redis', key: 'password' });
    expect(start).toMatch(/^requirepass "\$REDIS_PASSWORD"$/m);
    expect(start).toMatch(/^masterauth "\$REDIS_PASSWORD"$/m);
    // Never on a command line (visible in the process list).
    expect(JSON.stringify([container.command, container.args ?? []])).not.toMatch(/PASSWORD/);
  });

  it('when hosts are drained or fail, then no two nodes share a host (dev: preferably), one is disrupted at a time, and probes tell alive from ready', () => {
    const anti = pod.affinity.podAntiAffinity;
    const term =
      dir === 'overlays/dev' ? anti.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm : anti.requiredDuringSchedulingIgnoredDuringExecution[0];
    expect(term).toEqual({ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: sts.spec.selector.matchLabels } });
    expect(pod.topologySpreadConstraints.map((c: any) => c.topologyKey)).toContain('topology.kubernetes.io/zone');
    const pdb = one(objects, 'PodDisruptionBudget', 'redis-cluster');
    expect(pdb.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: sts.spec.selector.matchLabels } });
    expect(container.livenessProbe.exec.command).toEqual(['sh', `${scriptsMount}/probe.sh`, 'live']);
    expect(container.startupProbe.exec.command).toEqual(['sh', `${scriptsMount}/probe.sh`, 'live']);
    expect(container.readinessProbe.exec.command).toEqual(['sh', `${scriptsMount}/probe.sh`, 'ready']);
    // A restarted master waits up to 30 s for its replica (start.sh): the startup probe allows for it.
    expect(container.startupProbe.periodSeconds * container.startupProbe.failureThreshold).toBeGreaterThan(
      Number(scriptDefault(start, 'REDIS_FAILOVER_WAIT_SECONDS')) + 10,
    );
    expect(container.lifecycle.preStop.exec.command).toEqual(['sh', `${scriptsMount}/pre-stop.sh`]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(scriptDefault(configMap.data['pre-stop.sh'], 'REDIS_FAILOVER_WAIT_SECONDS')) + 10);
    expect(container.resources.requests.cpu).toBeDefined();
  });

  it('when the pods run, then like every other workload: non-root, read-only root filesystem, no capabilities, no service-account token', () => {
    for (const w of workloads(objects).filter((x) => /redis/.test(x.object.metadata.name))) {
      const name = w.object.metadata.name;
      expect({ name, ctx: w.pod.securityContext }).toMatchObject({ name, ctx: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } });
      expect({ name, token: w.pod.automountServiceAccountToken, links: w.pod.enableServiceLinks }).toEqual({ name, token: false, links: false });
      for (const c of w.pod.containers) {
        expect({ name, ctx: c.securityContext }).toEqual({
          name,
          ctx: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        });
        expect({ name, limit: Boolean(c.resources?.limits?.memory), request: Boolean(c.resources?.requests?.cpu) }).toEqual({
          name,
          limit: true,
          request: true,
        });
      }
    }
  });

  it("when the cluster is formed, then a Job does it from exactly the StatefulSet's pods, with the Secret's password", () => {
    const job = one(objects, 'Job', 'redis-cluster-create');
    const jobPod = job.spec.template.spec;
    const c = jobPod.containers[0];
    const jobScripts = jobPod.volumes.find((v: any) => v.configMap);
    expect(jobScripts.configMap.name).toBe(configMap.metadata.name);
    expect(c.command).toEqual(['sh', `${c.volumeMounts.find((m: any) => m.name === jobScripts.name).mountPath}/create-cluster.sh`]);
    expect(c.image).toBe(container.image);
    const jobEnv = new Map<string, any>(c.env.map((e: any) => [e.name, e]));
    expect(jobEnv.get('REDIS_CLUSTER_NODES').value.split(',')).toEqual(hostnames);
    expect(jobEnv.get('REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'glimpse-redis', key: 'password' });
    expect(jobPod.restartPolicy).toBe('Never');
    // Finished Jobs go, so the next apply runs it again (it only forms what is not formed).
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    expect(createScript).toMatch(/redis-cli --cluster create \$addrs --cluster-replicas \d+ --cluster-yes/);
  });
});

describe.each(['overlays/dev', 'overlays/prod'])('%s: the gateway and the Redis Cluster', (overlay) => {
  const objects = render(overlay);
  const glimpse = objects.filter((o) => o.metadata.namespace === NAMESPACE);
  const sts = one(objects, 'StatefulSet', 'redis-cluster');
  const gateway = workloads(glimpse).find((w) => w.object.metadata.name === 'gateway')!;
  const pods = podsOf(glimpse);
  const policies = find(glimpse, 'NetworkPolicy');

  it("when the gateway starts, then REDIS_CLUSTER_NODES names exactly the StatefulSet's pods and REDIS_PASSWORD comes from the Secret", () => {
    const env = environment(objects, gateway);
    const expected = Array.from(
      { length: sts.spec.replicas },
      (_, i) => `${sts.metadata.name}-${i}.${sts.spec.serviceName}.${sts.metadata.namespace}.svc:6379`,
    );
    expect(env.REDIS_CLUSTER_NODES!.split(',')).toEqual(expected);
    const vars = gateway.pod.containers[0].env;
    expect(vars.find((e: any) => e.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'glimpse-redis', key: 'password' });
    // The single Redis is gone: no address of it anywhere in the gateway's settings.
    expect(env.REDIS_URL).toBeUndefined();
    expect(vars.some((e: any) => e.name === 'REDIS_URL')).toBe(false);
    // Raw copies stop first, then idempotency keys; the last share is the counters' (noeviction).
    expect(Number(env.REDIS_RAW_MEMORY_FRACTION)).toBeGreaterThan(0);
    expect(Number(env.REDIS_RAW_MEMORY_FRACTION)).toBeLessThan(Number(env.REDIS_KEYS_MEMORY_FRACTION));
    expect(Number(env.REDIS_KEYS_MEMORY_FRACTION)).toBeLessThan(1);
    expect(find(objects, 'Deployment', 'redis')).toEqual([]);
  });

  it('when anything connects to Redis, then only the gateway and the Job reach 6379, and only the nodes reach each other on 6379 and the cluster bus', () => {
    const node = pods.find((p) => p.name === 'StatefulSet/redis-cluster')!;
    const flows = pods.flatMap((from) =>
      pods.flatMap((to) => [6379, 16379].filter((port) => allowed(policies, from, to, port)).map((port) => `${from.name} -> ${to.name}:${port}`)),
    );
    expect(flows.sort()).toEqual([
      'Deployment/gateway -> StatefulSet/redis-cluster:6379',
      'Job/redis-cluster-create -> StatefulSet/redis-cluster:6379',
      'StatefulSet/redis-cluster -> StatefulSet/redis-cluster:16379',
      'StatefulSet/redis-cluster -> StatefulSet/redis-cluster:6379',
    ]);
    // Nothing from another namespace or outside the cluster: every peer of the nodes' policy is a
    // pod of this namespace.
    const own = policies.filter(
      (p) =>
        Object.keys(p.spec.podSelector.matchLabels ?? {}).length > 0 && Object.entries(p.spec.podSelector.matchLabels).every(([k, v]) => node.labels[k] === v),
    );
    expect(own.map((p) => p.metadata.name)).toEqual(['redis-cluster']);
    const peers = own[0]!.spec.ingress.flatMap((r: any) => r.from);
    expect(peers.every((p: any) => p.podSelector && !p.namespaceSelector && !p.ipBlock)).toBe(true);
    // The nodes go out only to each other and to DNS (start.sh resolves the peers' names).
    const egressPorts = own[0]!.spec.egress.flatMap((e: any) => e.ports.map((p: any) => p.port)).sort((a: number, b: number) => a - b);
    expect(egressPorts).toEqual([53, 53, 6379, 16379]);
  });

  it('when traffic starts, then prod holds what the capacity model asks for at 1k events/s: a day of raw copies and Idempotency-Keys on its three masters', () => {
    if (overlay !== 'overlays/prod') return;
    const inputs = capacity.inputs();
    const container = sts.spec.template.spec.containers[0];
    const limitMiB = Number(/^(\d+)Gi$/.exec(container.resources.limits.memory)![1]) * 1024;
    const percent = Number(container.env.find((e: any) => e.name === 'REDIS_MAXMEMORY_PERCENT').value);
    // maxmemory in GiB, which the model's "GB" is taken as (the smaller number: the safe side).
    const maxmemoryGiB = Math.floor((limitMiB * percent) / 100) / 1024;
    const size = capacity.sizeFor(1000, { ...inputs, redisMaxmemoryGB: { ...inputs.redisMaxmemoryGB, value: maxmemoryGiB } });
    expect(size.redisMasters).toBeLessThanOrEqual(sts.spec.replicas / (1 + inputs.redisReplicasPerMaster.value));
    expect(size.redisNodes).toBeLessThanOrEqual(sts.spec.replicas);
    // The model and the gateway agree on the share of memory raw copies may take.
    expect(Number(environment(objects, gateway).REDIS_RAW_MEMORY_FRACTION)).toBe(inputs.redisRawMemoryFraction.value);
  });

  it('when the images are named, then Redis is at least 7 (announced hostnames), and prod pins it by digest', () => {
    const images = [sts, one(objects, 'Job', 'redis-cluster-create')].map((o: K8sObject) => o.spec.template.spec.containers[0].image as string);
    if (overlay === 'overlays/prod') for (const i of images) expect(i).toMatch(/^docker\.io\/library\/redis@sha256:[0-9a-f]{64}$/);
    else for (const i of images) expect(Number(/:(\d+)\./.exec(i)![1])).toBeGreaterThanOrEqual(7);
  });
});
