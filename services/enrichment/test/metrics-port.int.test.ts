// METRICS_PORT: health, readiness and metrics on a port of their own (0 picks a free one, and the
// running service reports it as it reports its HTTP port), the service's port then serving no
// /metrics, and the metrics port serving no /internal. The network policies let the monitoring
// namespace reach only that port (deploy/test checks the manifests).
import { randomUUID } from 'node:crypto';
import { devInternalToken } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { startTestEnrichmentService, startTestPlaybookService } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { startTestWebhooksService } from '../../../test/support/webhooks';

type Started = { url: string; port: number; metricsPort?: number; metricsUrl?: string; stop(): Promise<void> };
const services: Record<string, Started> = {};

beforeAll(async () => {
  const env = { METRICS_PORT: '0' };
  [services.enrichment, services.playbook, services.visitors, services.webhooks] = await Promise.all([
    startTestEnrichmentService(env),
    startTestPlaybookService(env),
    startTestVisitorsService(env),
    startTestWebhooksService(env),
  ]);
});

afterAll(async () => {
  await Promise.all(Object.values(services).map((s) => s.stop()));
});

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() }));
const gateway = { [INTERNAL_HEADERS.token]: devInternalToken('gateway'), [INTERNAL_HEADERS.account]: randomUUID() };
const internalPath: Record<string, string> = {
  enrichment: '/internal/usage',
  playbook: '/internal/playbooks',
  visitors: '/internal/visitors',
  webhooks: '/internal/webhooks',
};

it.each(['enrichment', 'playbook', 'visitors', 'webhooks'])(
  'when the %s service is given METRICS_PORT=0, then it reports a free port of its own serving health, readiness and metrics',
  async (name) => {
    const s = services[name]!;
    expect(s.metricsPort).toEqual(expect.any(Number));
    expect(s.metricsPort).not.toBe(s.port);
    expect(s.metricsUrl).toBe(`http://127.0.0.1:${s.metricsPort}`);
    const metrics = await get(`${s.metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
    expect((await get(`${s.metricsUrl}/healthz`)).status).toBe(200);
    expect([200, 503]).toContain((await get(`${s.metricsUrl}/readyz`)).status);
  },
);

it.each(['enrichment', 'playbook', 'visitors', 'webhooks'])(
  'when the %s service has a metrics port, then its own port serves no /metrics, and the metrics port no /internal',
  async (name) => {
    const s = services[name]!;
    const onMain = await get(`${s.url}/metrics`);
    expect(onMain.status).toBe(404);
    expect(onMain.text).not.toContain('process_cpu_user_seconds_total');
    expect((await get(`${s.url}/healthz`)).status).toBe(200); // the kubelet's probes stay on the service's port
    expect((await get(`${s.url}${internalPath[name]}`, gateway)).status).toBe(200);
    const internalOnMetrics = await get(`${s.metricsUrl}${internalPath[name]}`, gateway);
    expect(internalOnMetrics.status).toBe(404);
    expect(JSON.parse(internalOnMetrics.text)).toMatchObject({ error: 'not_found' });
  },
);
