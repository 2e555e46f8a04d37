// Reads what the rendered workloads need: their pod specs, environment, and every Secret key they
// (or the operators' resources) read.
import { find, type K8sObject } from './render';

export interface Workload {
  object: K8sObject;
  pod: any;
}

export const workloads = (objects: K8sObject[]): Workload[] =>
  objects.filter((o) => ['Deployment', 'Job', 'StatefulSet'].includes(o.kind)).map((object) => ({ object, pod: object.spec.template.spec }));

/** The container's environment as the pod sees it: ConfigMaps from envFrom, then env literals. */
export function environment(objects: K8sObject[], w: Workload, container = w.pod.containers[0]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const cm = from.configMapRef && find(objects, 'ConfigMap', from.configMapRef.name)[0];
    Object.assign(env, cm?.data ?? {});
  }
  for (const e of container.env ?? []) if (typeof e.value === 'string') env[e.name] = e.value;
  return env;
}

export interface SecretRef {
  namespace: string;
  name: string;
  key?: string;
  by: string;
}

/** Every Secret (and key, where one is named) the objects read. */
export function secretRefs(objects: K8sObject[]): SecretRef[] {
  const refs: SecretRef[] = [];
  const add = (o: K8sObject, name: string, key?: string) =>
    refs.push({ namespace: o.metadata.namespace ?? 'default', name, key, by: `${o.kind}/${o.metadata.name}` });
  for (const { object, pod } of workloads(objects)) {
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) add(object, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key);
      for (const e of c.envFrom ?? []) if (e.secretRef) add(object, e.secretRef.name);
      // A mounted Secret: the keys the container points at by path (e.g. NODE_EXTRA_CA_CERTS).
      for (const m of c.volumeMounts ?? []) {
        const vol = (pod.volumes ?? []).find((v: any) => v.name === m.name);
        if (!vol?.secret) continue;
        const paths = (c.env ?? []).map((e: any) => e.value).filter((v: unknown) => typeof v === 'string' && v.startsWith(`${m.mountPath}/`));
        if (paths.length === 0) add(object, vol.secret.secretName);
        for (const p of paths) add(object, vol.secret.secretName, p.slice(m.mountPath.length + 1));
      }
    }
  }
  for (const o of find(objects, 'TriggerAuthentication')) for (const r of o.spec.secretTargetRef ?? []) add(o, r.name, r.key);
  for (const o of find(objects, 'Cluster')) {
    const basicAuth = (name: string) => ['username', 'password'].forEach((k) => add(o, name, k));
    if (o.spec.bootstrap?.initdb?.secret) basicAuth(o.spec.bootstrap.initdb.secret.name);
    for (const r of o.spec.managed?.roles ?? []) if (r.passwordSecret) basicAuth(r.passwordSecret.name);
    const s3 = o.spec.backup?.barmanObjectStore?.s3Credentials;
    for (const k of ['accessKeyId', 'secretAccessKey']) if (s3?.[k]) add(o, s3[k].name, s3[k].key);
  }
  return refs;
}

/** name → keys of the Secrets the ExternalSecrets create (a template's keys replace the data's). */
export function externalSecretKeys(objects: K8sObject[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const es of find(objects, 'ExternalSecret')) {
    const template = es.spec.target?.template?.data;
    const keys = template ? Object.keys(template) : (es.spec.data ?? []).map((d: any) => d.secretKey);
    out.set(`${es.metadata.namespace}/${es.spec.target?.name ?? es.metadata.name}`, new Set(keys));
  }
  return out;
}
