// Every kustomization under deploy/k8s renders, and every object it renders is valid against the
// Kubernetes API and the operators' CRD schemas (vendored in deploy/test/schemas).
import { kustomizations, render } from './lib/render';
import { validateObject } from './lib/schemas';

describe('deploy/k8s renders and validates', () => {
  const dirs = kustomizations();

  it('when the manifests are listed, then the base, both overlays and their migration and import Jobs are among them', () => {
    expect(dirs).toEqual(
      expect.arrayContaining([
        'base/kafka',
        'base/postgres',
        'base/redis',
        'base/services',
        'base/migrate',
        'base/import',
        'overlays/dev',
        'overlays/dev/migrate',
        'overlays/dev/import',
        'overlays/prod',
        'overlays/prod/migrate',
        'overlays/prod/import',
      ]),
    );
  });

  it.each(dirs)('when %s is rendered, then every object is valid against its schema', (dir) => {
    const objects = render(dir);
    expect(objects.length).toBeGreaterThan(0);
    const problems = objects.flatMap((o) => validateObject(o).map((p) => `${o.kind}/${o.metadata?.name}${p}`));
    expect(problems).toEqual([]);
  });
});

describe('the validator', () => {
  const base = render('base/services');
  const kafka = render('base/kafka');
  const clone = <T>(o: T): T => structuredClone(o);

  it('when a Deployment has a misspelt field, then it is refused naming the field', () => {
    const d = clone(base.find((o) => o.kind === 'Deployment')!);
    d.spec.template.spec.containers[0].imagePullPolicyy = 'Always';
    expect(validateObject(d).join('\n')).toMatch(/containers\/0: must NOT have additional properties "imagePullPolicyy"/);
  });

  it('when a Deployment field has the wrong type, then it is refused', () => {
    const d = clone(base.find((o) => o.kind === 'Deployment')!);
    d.spec.template.spec.containers[0].ports[0].containerPort = '8080';
    expect(validateObject(d).join('\n')).toMatch(/ports\/0\/containerPort: must be integer/);
  });

  it('when a Strimzi resource has a wrong field or type, then it is refused', () => {
    const user = clone(kafka.find((o) => o.kind === 'KafkaUser')!);
    user.spec.authorization.acls[0].operation = 'Write';
    const k = clone(kafka.find((o) => o.kind === 'Kafka')!);
    k.spec.kafka.listeners[0].port = '9093';
    expect(validateObject(user).join('\n')).toMatch(/acls\/0: must NOT have additional properties "operation"/);
    expect(validateObject(k).join('\n')).toMatch(/listeners\/0\/port: must be integer/);
  });

  it('when a KEDA, CloudNativePG, Prometheus or External Secrets resource is wrong, then it is refused', () => {
    const prod = render('overlays/prod');
    const so = clone(prod.find((o) => o.kind === 'ScaledObject')!);
    so.spec.triggers[0].metadata.lagThreshold = 1000;
    const cluster = clone(prod.find((o) => o.kind === 'Cluster')!);
    cluster.spec.instance = 3;
    const sm = clone(prod.find((o) => o.kind === 'ServiceMonitor')!);
    sm.spec.endpoints[0].interval = 30;
    const es = clone(prod.find((o) => o.kind === 'ExternalSecret')!);
    es.spec.target.creationPolicy = 'Sometimes';
    expect(validateObject(so).join('\n')).toMatch(/metadata\/lagThreshold: must be string/);
    expect(validateObject(cluster).join('\n')).toMatch(/must NOT have additional properties "instance"/);
    expect(validateObject(sm).join('\n')).toMatch(/interval: must be string/);
    expect(validateObject(es).join('\n')).toMatch(/creationPolicy: must be equal to one of the allowed values/);
  });

  it('when an object has bad metadata or an unknown kind, then it is refused', () => {
    const user = clone(kafka.find((o) => o.kind === 'KafkaUser')!);
    user.metadata.labels = { 'strimzi.io/cluster': 3 as unknown as string };
    expect(validateObject(user).join('\n')).toMatch(/\/metadata\/labels\/strimzi.io~1cluster: must be string/);
    expect(validateObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual([
      'no schema for example.com/v1/Widget: vendor it (deploy/test/schemas/vendor.js)',
    ]);
  });
});
