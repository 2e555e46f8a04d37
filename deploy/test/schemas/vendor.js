#!/usr/bin/env node
// Regenerates the vendored schemas that deploy/test validates every rendered object against:
// Kubernetes' own API (the OpenAPI document the official Python client ships) and the CRDs of the
// operators the manifests use. Descriptions are dropped (they are most of the bytes and validate
// nothing). Reads each source from a git snapshot of its repository at a release tag:
//   node deploy/test/schemas/vendor.js DIR     (DIR holds <owner>+<name>/repo or <name>, git dirs)
// and records each file's origin and sha256 in sources.json.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const YAML = require('yaml');

const SOURCES = [
  { repo: 'kubernetes-client/python', tag: 'v36.0.3', path: 'kubernetes/swagger.json.unprocessed', kind: 'kubernetes' },
  ...['040-Crd-kafka.yaml', '043-Crd-kafkatopic.yaml', '044-Crd-kafkauser.yaml', '045-Crd-kafkanodepool.yaml'].map((f) => ({ repo: 'strimzi/strimzi-kafka-operator', tag: '1.2.0', path: `packaging/install/cluster-operator/${f}` })),
  ...['scaledobjects', 'triggerauthentications'].map((f) => ({ repo: 'kedacore/keda', tag: 'v2.20.2', path: `config/crd/bases/keda.sh_${f}.yaml` })),
  ...['clusters', 'poolers', 'scheduledbackups'].map((f) => ({ repo: 'cloudnative-pg/cloudnative-pg', tag: 'v1.30.0', path: `config/crd/bases/postgresql.cnpg.io_${f}.yaml` })),
  { repo: 'prometheus-operator/prometheus-operator', tag: 'v0.93.0', path: 'example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml' },
  ...['externalsecrets', 'secretstores', 'clustersecretstores'].map((f) => ({ repo: 'external-secrets/external-secrets', tag: 'v2.9.0', path: `config/crds/bases/external-secrets.io_${f}.yaml` })),
];

function gitDir(root, repo) {
  const [owner, name] = repo.split('/');
  for (const p of [path.join(root, `${owner}+${name}`, 'repo'), path.join(root, name, '.git'), path.join(root, name)]) if (fs.existsSync(p)) return p;
  throw new Error(`no git snapshot of ${repo} under ${root}`);
}

/** Drops descriptions (and examples) everywhere, keeping the property named "description". */
function strip(node) {
  if (Array.isArray(node)) return node.map(strip);
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'description' || k === 'example') && typeof v === 'string') continue;
    out[k] = k === 'properties' || k === 'definitions' || k === 'patternProperties' ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, strip(pv)])) : strip(v);
  }
  return out;
}

function main() {
  const root = process.argv[2];
  if (!root || root === '--help') {
    console.log('usage: node deploy/test/schemas/vendor.js SNAPSHOT_DIR');
    process.exit(root ? 0 : 2);
  }
  const here = __dirname;
  const provenance = [];
  const crds = {};
  for (const src of SOURCES) {
    const text = execFileSync('git', ['-C', gitDir(root, src.repo), 'show', `${src.tag}:${src.path}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    provenance.push({ ...src, sha256: crypto.createHash('sha256').update(text).digest('hex') });
    if ('kind' in src && src.kind === 'kubernetes') {
      const doc = JSON.parse(text);
      const gvks = {};
      for (const [name, def] of Object.entries(doc.definitions)) {
        for (const g of def['x-kubernetes-group-version-kind'] ?? []) gvks[`${g.group ? `${g.group}/` : ''}${g.version}/${g.kind}`] = name;
      }
      fs.writeFileSync(path.join(here, 'kubernetes.json'), `${JSON.stringify({ gvks, definitions: strip(doc.definitions) })}\n`);
      continue;
    }
    const crd = YAML.parse(text);
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      crds[`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`] = { scope: crd.spec.scope, schema: strip(v.schema.openAPIV3Schema) };
    }
  }
  fs.writeFileSync(path.join(here, 'crds.json'), `${JSON.stringify(crds)}\n`);
  fs.writeFileSync(path.join(here, 'sources.json'), `${JSON.stringify(provenance, null, 2)}\n`);
  console.log(`vendored ${Object.keys(crds).length} CRD versions and the Kubernetes API from ${provenance.length} files`);
}

main();
