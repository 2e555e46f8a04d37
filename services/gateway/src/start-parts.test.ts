import { toAdmission } from './start-auth';
import { gatewayReadinessChecks } from './start-readiness';
import { stopGatewayParts } from './start-shutdown';
import type { OptionalCheck, ReadinessCheck } from '@glimpse/http';

describe('toAdmission', () => {
  it("when the limiter refuses, then the authenticator's Retry-After is the limiter's reset time", () => {
    expect(toAdmission({ allowed: false, limit: 10, remaining: 0, resetSeconds: 7 })).toEqual({ allowed: false, retryAfterSeconds: 7 });
    expect(toAdmission({ allowed: true, limit: 10, remaining: 3, resetSeconds: 1 })).toEqual({ allowed: true, retryAfterSeconds: 1 });
  });
});

describe('gatewayReadinessChecks', () => {
  function deps(over: { connected?: boolean; kafkaFails?: boolean } = {}) {
    return {
      producer: { isConnected: () => over.connected ?? true },
      kafkaHealth: {
        check: jest.fn(async () => {
          if (over.kafkaFails) throw new Error('no broker');
        }),
      },
      db: { $queryRawUnsafe: jest.fn(async () => [{ '?column?': 1 }]) },
      redis: { ping: jest.fn(async () => 'PONG') },
    };
  }
  const run = (c: ReadinessCheck | OptionalCheck) => (typeof c === 'function' ? c() : c.check());

  it('when the producer is not connected, then the kafka check fails without asking the broker', async () => {
    const d = deps({ connected: false });
    await expect(run(gatewayReadinessChecks(d).kafka!)).rejects.toThrow('producer not connected');
    expect(d.kafkaHealth.check).not.toHaveBeenCalled();
  });

  it('when the producer is connected, then the kafka check is the broker health check, and only kafka is required', async () => {
    const checks = gatewayReadinessChecks(deps({ kafkaFails: true }));
    await expect(run(checks.kafka!)).rejects.toThrow('no broker');
    expect(typeof checks.kafka).toBe('function');
    expect(checks.postgres).toMatchObject({ optional: true });
    expect(checks.redis).toMatchObject({ optional: true });
  });

  it('the optional checks ask Postgres and Redis', async () => {
    const d = deps();
    const checks = gatewayReadinessChecks(d);
    await run(checks.postgres!);
    await run(checks.redis!);
    expect(d.db.$queryRawUnsafe).toHaveBeenCalledWith('SELECT 1');
    expect(d.redis.ping).toHaveBeenCalledTimes(1);
  });
});

describe('stopGatewayParts', () => {
  it('stops the server first, then the outbox publisher, then the producer, then the rest, the database last', async () => {
    const order: string[] = [];
    const step = (name: string) => async () => {
      order.push(name);
    };
    await stopGatewayParts({
      server: { stop: step('server') },
      accountEvents: { stop: step('accountEvents') },
      producer: { disconnect: step('producer') },
      kafkaHealth: { close: step('kafkaHealth') },
      clients: {
        enrichment: { close: step('enrichment') },
        playbooks: { close: step('playbooks') },
        webhooks: { close: step('webhooks') },
        visitors: { close: step('visitors') },
      },
      memoryGuard: { stop: () => void order.push('memoryGuard') },
      redis: { disconnect: () => void order.push('redis') },
      db: { $disconnect: step('db') },
    });
    expect(order).toEqual([
      'server',
      'accountEvents',
      'producer',
      'kafkaHealth',
      'enrichment',
      'playbooks',
      'webhooks',
      'visitors',
      'memoryGuard',
      'redis',
      'db',
    ]);
  });
});
