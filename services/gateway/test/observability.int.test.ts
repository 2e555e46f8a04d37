// Health, readiness, metrics, request ids, graceful shutdown and log hygiene of the gateway and
// the playbook service, as operators see them.
import { createTestAccount, closeTestDb, postEvent, request, serviceEnv, startTestGateway, uniqueEmail, waitFor } from '../../../test/support/stack';
import { spawnService, waitForLog } from '../../../test/support/child-process';
import http from 'node:http';
import type { RunningGateway } from '../src/start';

/** A POST whose body is sent in two parts, so the request is in flight between them. */
function slowPost(base: string, token: string, body: unknown) {
  const data = Buffer.from(JSON.stringify(body));
  const url = new URL(`${base}/events`);
  let finish!: () => void;
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const status = new Promise<number>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': data.length, authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(data.subarray(0, 5), () => setTimeout(started, 100));
    finish = () => req.end(data.subarray(5));
  });
  return { started: startedP, finish: () => finish(), status };
}

afterAll(closeTestDb);

describe('gateway endpoints for operators', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('when probed, then /healthz is alive, /readyz names each dependency and /metrics exposes request and event counters', async () => {
    expect(await request(`${gateway.url}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await request(`${gateway.url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', kafka: 'ok' } } });
    const { token } = await createTestAccount();
    expect((await postEvent(gateway.url, token, { event: 'signed_up', email: uniqueEmail() })).status).toBe(200);
    const metrics = await request(`${gateway.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^glimpse_events_accepted_total [1-9]/m);
    expect(metrics.body).toMatch(/http_request_duration_seconds_count\{route="\/events",method="POST",status="200"\} [1-9]/);
    expect(metrics.body).toContain('process_cpu_seconds_total');
  });

  it('when a request carries x-request-id, then the response echoes it; otherwise one is generated', async () => {
    const given = await request(`${gateway.url}/healthz`, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const generated = await request(`${gateway.url}/healthz`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when a route does not exist, then it answers 404 with an {error, message} body', async () => {
    const res = await request(`${gateway.url}/nope`);
    expect(res).toMatchObject({ status: 404, body: { error: 'not_found', message: expect.stringContaining('/nope') } });
  });
});

describe('service processes', () => {
  it('when the gateway runs as a process with debug logs and then gets SIGTERM, then it logs no personal data and exits 0 after draining', async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const proc = spawnService('gateway', serviceEnv('gateway', { PORT: port, LOG_LEVEL: 'debug', KAFKAJS_NO_PARTITIONER_WARNING: '1' }));
    try {
      await waitForLog(proc, /gateway listening/);
      const base = `http://127.0.0.1:${port}`;
      const { token } = await createTestAccount();
      const email = uniqueEmail('private');
      const secret = `prop-${Date.now()}`;
      expect((await postEvent(base, token, { event: 'signed_up', email, properties: { secret } })).status).toBe(200);
      expect((await postEvent(base, token, { event: 'bad name', email, properties: { secret } })).status).toBe(400);
      expect((await postEvent(base, `${token.slice(0, -2)}xx`, { event: 'signed_up', email })).status).toBe(401);

      // A request the server is in the middle of reading when SIGTERM arrives must still be answered.
      const inFlight = slowPost(base, token, { event: 'signed_up', email: uniqueEmail() });
      await inFlight.started;
      const exit = proc.stop('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      inFlight.finish();
      expect(await inFlight.status).toBe(200);
      expect(await exit).toBe(0);
      const logs = proc.output();
      expect(logs).toContain('gateway stopped');
      expect(logs).not.toContain(email);
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(token);
      expect(logs).not.toContain(token.slice(4));
    } finally {
      await proc.stop('SIGKILL');
    }
  });

  it('when the playbook service runs as a process, then its probes answer and SIGTERM makes it leave the group and exit 0', async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const proc = spawnService(
      'playbook',
      serviceEnv('playbook', {
        PLAYBOOK_PORT: port,
        PLAYBOOK_GROUP_ID: 'glimpse-playbook-observability-test',
        LOG_LEVEL: 'info',
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
      }),
    );
    try {
      await waitForLog(proc, /playbook service running/);
      const base = `http://127.0.0.1:${port}`;
      expect(await request(`${base}/healthz`)).toMatchObject({ status: 200 });
      const ready = await waitFor(
        async () => {
          const r = await request(`${base}/readyz`);
          return r.status === 200 && r;
        },
        { what: 'playbook readiness' },
      );
      expect(ready.body).toMatchObject({ checks: { postgres: 'ok', kafka: 'ok' } });
      expect((await request(`${base}/metrics`)).body).toContain('glimpse_events_processed_total');
      expect(await proc.stop('SIGTERM')).toBe(0);
      expect(proc.output()).toContain('playbook service stopped');
    } finally {
      await proc.stop('SIGKILL');
    }
  });
});
