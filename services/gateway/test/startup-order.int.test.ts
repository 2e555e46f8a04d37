// The gateway process started while Kafka, Postgres and Redis are all unreachable: it starts and
// stays up (it used to exit after ~80 ms), answers unready and 503, and once they are reachable
// it connects by itself, turns ready and takes events.
import { spawnService, waitForLog, type ServiceProcess } from '../../../test/support/child-process';
import { closeTestDb, createTestAccount, postEvent, request, serviceEnv, uniqueEmail, waitFor } from '../../../test/support/stack';
import { kafkaBrokers, redisUrl, testDatabaseUrl } from '../../../test/config';
import { freePort } from '../../../test/support/private-postgres';
import { createTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';

const hostPort = (hostAndPort: string) => {
  const [host, port] = hostAndPort.split(':');
  return { host: host!, port: Number(port) };
};

function through(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}

let proxies: TcpProxy[] = [];
let proc: ServiceProcess | undefined;

afterAll(async () => {
  await proc?.stop('SIGKILL');
  await Promise.all(proxies.map((p) => p.close()));
  await closeTestDb();
});

describe('gateway start-up order', () => {
  it('when Kafka, Postgres and Redis are down at start, then the gateway starts unready and answers 503, and becomes ready and takes events once they come', async () => {
    const pgUrl = new URL(testDatabaseUrl());
    const redis = new URL(redisUrl());
    const [kafka, postgres, redisProxy] = await Promise.all([
      createTcpProxy(hostPort(kafkaBrokers()[0]!)),
      createTcpProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) }),
      createTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) }),
    ]);
    proxies = [kafka, postgres, redisProxy];
    const { token } = await createTestAccount();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    proc = spawnService(
      'gateway',
      serviceEnv('gateway', {
        PORT: String(port),
        LOG_LEVEL: 'warn',
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
        KAFKA_BROKERS: `127.0.0.1:${kafka.port}`,
        DATABASE_URL: through(testDatabaseUrl(), postgres),
        REDIS_URL: through(redisUrl(), redisProxy),
      }),
    );

    await waitForLog(proc, /kafka not reachable at start/);
    await waitFor(async () => (await request(`${base}/healthz`)).status === 200, { what: 'the gateway to listen', timeoutMs: 20_000 });
    const unready = await request(`${base}/readyz`);
    expect(unready.status).toBe(503);
    expect(unready.body.checks).toMatchObject({
      kafka: expect.stringMatching(/^failed: /),
      postgres: expect.stringMatching(/^degraded: /),
      redis: expect.stringMatching(/^degraded: /),
    });
    const refused = await postEvent(base, token, { event: 'too_early', email: uniqueEmail() });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    // Still running well after the old ~80 ms exit.
    await new Promise((r) => setTimeout(r, 1500));
    expect(proc.child.exitCode).toBeNull();

    await Promise.all(proxies.map((p) => p.open()));
    const ready = await waitFor(
      async () => {
        const r = await request(`${base}/readyz`);
        return r.status === 200 && r.body.checks.redis === 'ok' && r.body.checks.postgres === 'ok' && r;
      },
      { what: 'the gateway to turn ready', timeoutMs: 30_000 },
    );
    expect(ready.body.checks).toEqual({ kafka: 'ok', postgres: 'ok', redis: 'ok' });
    expect((await postEvent(base, token, { event: 'on_time', email: uniqueEmail() })).status).toBe(200);
  }, 90_000);
});
