// The Postgres connection budget of a rendered overlay: what the services' pools can open at their
// maximum replicas, what PgBouncer lets through to Postgres, and what Postgres allows.
import fs from 'node:fs';
import path from 'node:path';
import { find, one, REPO, type K8sObject } from './render';
import { environment, workloads } from './workloads';

/**
 * The pool size a service's start.ts passes to createDb, evaluated with the pod's environment
 * (e.g. `config.PLAYBOOK_CONCURRENCY + 4`). Throws if it cannot be found, so a change there is seen.
 */
export function poolSize(service: string, env: Record<string, string>): number {
  const source = fs.readFileSync(path.join(REPO, 'services', service, 'src', 'start.ts'), 'utf8');
  const m = /createDb\(\{[^}]*poolSize:\s*([^,}]+)/.exec(source);
  if (!m) throw new Error(`services/${service}/src/start.ts: no createDb({ poolSize }) found; update deploy/test/lib/budget.ts`);
  const expr = m[1]!.trim().replace(/config\.(\w+)/g, (_, name: string) => {
    if (env[name] === undefined) throw new Error(`pool size of ${service} uses ${name}, which its Deployment does not set`);
    return String(Number(env[name]));
  });
  if (!/^[\d\s+*()-]+$/.test(expr)) throw new Error(`cannot evaluate the pool size of ${service}: ${m[1]}`);
  return Number(new Function(`return (${expr});`)());
}

function maxReplicas(objects: K8sObject[], deployment: string): number {
  const hpa = find(objects, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === deployment);
  const so = find(objects, 'ScaledObject').find((s) => s.spec.scaleTargetRef.name === deployment);
  if (hpa) return hpa.spec.maxReplicas;
  if (so) return so.spec.maxReplicaCount;
  return one(objects, 'Deployment', deployment).spec.replicas ?? 1;
}

export interface Budget {
  clients: { service: string; pool: number; maxReplicas: number; connections: number }[];
  clientConnections: number;
  poolerInstances: number;
  poolerClientLimit: number;
  serverConnections: number;
  maxConnections: number;
  reserved: number;
}

/** Connections Postgres keeps for itself and the operator: superusers, replicas, pooler auth, probes. */
const RESERVED_BESIDES_POOLS = (instances: number, poolerInstances: number) => 3 + (instances - 1) + poolerInstances + 5;
/** The migration runner: one connection (plus the maintenance database check). */
const MIGRATION_CONNECTIONS = 2;

export function connectionBudget(objects: K8sObject[]): Budget {
  const pooler = find(objects, 'Pooler')[0]!;
  const cluster = one(objects, 'Cluster', pooler.spec.cluster.name);
  const p = pooler.spec.pgbouncer.parameters;
  const clients = workloads(objects)
    .filter((w) => environment(objects, w).DATABASE_URL !== undefined || (w.pod.containers[0].env ?? []).some((e: any) => e.name === 'DATABASE_URL'))
    .filter((w) => w.object.kind === 'Deployment')
    .map((w) => {
      const service = w.object.metadata.name;
      const pool = poolSize(service, environment(objects, w));
      const max = maxReplicas(objects, service);
      return { service, pool, maxReplicas: max, connections: pool * max };
    });
  const roles = (cluster.spec.managed?.roles ?? []).filter((r: any) => r.login).length;
  const perPooler = Math.min(roles * Number(p.default_pool_size), Number(p.max_db_connections ?? Infinity));
  const reserved = RESERVED_BESIDES_POOLS(cluster.spec.instances, pooler.spec.instances) + MIGRATION_CONNECTIONS;
  return {
    clients,
    clientConnections: clients.reduce((s, c) => s + c.connections, 0),
    poolerInstances: pooler.spec.instances,
    poolerClientLimit: pooler.spec.instances * Number(p.max_client_conn),
    serverConnections: pooler.spec.instances * perPooler + reserved,
    maxConnections: Number(cluster.spec.postgresql.parameters.max_connections),
    reserved,
  };
}
