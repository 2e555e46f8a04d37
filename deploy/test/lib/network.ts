// Which connections the rendered NetworkPolicies allow between pods of one namespace, by the rules
// Kubernetes applies: a pod selected by some policy for a direction gets only what one of those
// policies' rules lets through (a pod selected by none is open), and a connection needs both the
// sender's egress and the receiver's ingress. Peers here are pods of the same namespace: ipBlocks
// never match them (pod addresses are private, and every ipBlock in deploy/k8s either names public
// ranges only or other ports), and a namespaceSelector matches only by the namespace's name label.
import type { K8sObject } from './render';

type Labels = Record<string, string>;

interface Selector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export function selects(selector: Selector | undefined, labels: Labels): boolean {
  if (!selector) return true;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) => {
    switch (e.operator) {
      case 'In':
        return e.values!.includes(labels[e.key]!);
      case 'NotIn':
        return !e.values!.includes(labels[e.key]!);
      case 'Exists':
        return e.key in labels;
      case 'DoesNotExist':
        return !(e.key in labels);
      default:
        throw new Error(`unknown selector operator ${e.operator}`);
    }
  });
  return byLabels && byExpressions;
}

export interface Pod {
  name: string;
  namespace: string;
  labels: Labels;
  /** Named container ports, for policies that name a port. */
  ports: Record<string, number>;
}

/** One pod per workload (Deployment, StatefulSet, Job), as its template describes it. */
export function podsOf(objects: K8sObject[]): Pod[] {
  return objects
    .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
    .map((o) => ({
      name: `${o.kind}/${o.metadata.name}`,
      namespace: o.metadata.namespace ?? 'default',
      labels: o.spec.template.metadata.labels ?? {},
      ports: Object.fromEntries(
        o.spec.template.spec.containers.flatMap((c: any) => (c.ports ?? []).filter((p: any) => p.name).map((p: any) => [p.name, p.containerPort])),
      ),
    }));
}

function peerMatches(peer: any, from: Pod, policyNamespace: string): boolean {
  if (peer.ipBlock) return false;
  const namespaceOk = peer.namespaceSelector
    ? selects(peer.namespaceSelector, { 'kubernetes.io/metadata.name': from.namespace })
    : from.namespace === policyNamespace;
  return namespaceOk && (peer.podSelector ? selects(peer.podSelector, from.labels) : true);
}

function portMatches(ports: any[] | undefined, port: number, target: Pod): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some(
    (p) =>
      (p.protocol ?? 'TCP') === 'TCP' &&
      (p.port === undefined || p.port === port || (typeof p.port === 'string' && target.ports[p.port] === port)) &&
      (p.endPort === undefined || (port >= p.port && port <= p.endPort)),
  );
}

function allowedOneWay(policies: K8sObject[], subject: Pod, peer: Pod, port: number, direction: 'Ingress' | 'Egress', portOwner: Pod): boolean {
  const governing = policies.filter(
    (p) =>
      (p.metadata.namespace ?? 'default') === subject.namespace &&
      selects(p.spec.podSelector, subject.labels) &&
      (p.spec.policyTypes ?? ['Ingress']).includes(direction),
  );
  if (governing.length === 0) return true;
  const key = direction === 'Ingress' ? 'ingress' : 'egress';
  const peersKey = direction === 'Ingress' ? 'from' : 'to';
  return governing.some((p) =>
    (p.spec[key] ?? []).some(
      (rule: any) =>
        (!rule[peersKey] || rule[peersKey].length === 0 || rule[peersKey].some((peerSpec: any) => peerMatches(peerSpec, peer, subject.namespace))) &&
        portMatches(rule.ports, port, portOwner),
    ),
  );
}

/** Whether `from` may open a TCP connection to `to` on `port`. */
export function allowed(policies: K8sObject[], from: Pod, to: Pod, port: number): boolean {
  return allowedOneWay(policies, from, to, port, 'Egress', to) && allowedOneWay(policies, to, from, port, 'Ingress', to);
}
