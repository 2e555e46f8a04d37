// Renders the kustomizations under deploy/k8s with `kubectl kustomize` (kustomize is built into
// kubectl), so the test sees exactly what `kubectl apply -k` would send.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const REPO = path.resolve(__dirname, '..', '..', '..');
export const K8S = path.join(REPO, 'deploy', 'k8s');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  spec?: any;
  [k: string]: any;
}

/** Directories under deploy/k8s holding a Kustomization (Components render through overlays). */
export function kustomizations(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    const file = path.join(dir, 'kustomization.yaml');
    if (fs.existsSync(file) && YAML.parse(fs.readFileSync(file, 'utf8')).kind !== 'Component') found.push(path.relative(K8S, dir));
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  walk(K8S);
  return found.sort();
}

const cache = new Map<string, K8sObject[]>();

export function render(rel: string): K8sObject[] {
  let objects = cache.get(rel);
  if (!objects) {
    const out = execFileSync('kubectl', ['kustomize', path.join(K8S, rel)], { encoding: 'utf8', maxBuffer: 64 << 20 });
    objects = YAML.parseAllDocuments(out)
      .map((d) => d.toJS() as K8sObject)
      .filter(Boolean);
    cache.set(rel, objects);
  }
  return objects;
}

export const find = (objects: K8sObject[], kind: string, name?: string) =>
  objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

export function one(objects: K8sObject[], kind: string, name: string): K8sObject {
  const [o, ...rest] = find(objects, kind, name);
  if (!o || rest.length) throw new Error(`expected exactly one ${kind}/${name}, found ${rest.length + (o ? 1 : 0)}`);
  return o;
}
