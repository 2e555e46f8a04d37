import { Counter, Registry } from 'prom-client';
import type { Logger } from '@glimpse/logging';
import { createEventApplier, parseAccountEvent } from './account-events-consumer-apply';
import { createConsumerHealth } from './account-events-consumer-health';
import { createWakeablePauses, doubledDelay, waitAtMost } from './account-events-consumer-pauses';
import { superviseConsumer } from './account-events-consumer-supervisor';
import type { AccountEventMessage } from './schemas';

const ACCOUNT = '5B0C7A52-3F5E-4A8E-9D64-0F2B8A1C9E11';
const deleted: AccountEventMessage = { type: 'account.deleted', accountId: ACCOUNT, at: '2026-01-01T00:00:00.000Z' };
const created: AccountEventMessage = { ...deleted, type: 'account.created' };

function quietLogger(): Logger & { warnings: unknown[] } {
  const warnings: unknown[] = [];
  return { info: () => undefined, warn: (o: unknown) => warnings.push(o), error: () => undefined, warnings } as unknown as Logger & { warnings: unknown[] };
}

describe('parseAccountEvent', () => {
  it('when the value is an account event, then it is returned; anything else (not JSON, wrong shape, empty) is undefined', () => {
    expect(parseAccountEvent(Buffer.from(JSON.stringify(deleted)))).toEqual(deleted);
    expect(parseAccountEvent(Buffer.from('{not json'))).toBeUndefined();
    expect(parseAccountEvent(Buffer.from(JSON.stringify({ ...deleted, type: 'account.renamed' })))).toBeUndefined();
    expect(parseAccountEvent(Buffer.from(JSON.stringify({ ...deleted, accountId: 'nope' })))).toBeUndefined();
    expect(parseAccountEvent(null)).toBeUndefined();
  });
});

describe('createEventApplier', () => {
  function setup(handlers: { onDeleted(id: string): Promise<number>; onCreated?(id: string): Promise<void> }, stopping = () => false) {
    const registry = new Registry();
    const applied = new Counter({ name: 'applied', help: 'h', labelNames: ['type'] as const, registers: [registry] });
    const failures = new Counter({ name: 'failures', help: 'h', registers: [registry] });
    const health = createConsumerHealth();
    const pauses: number[] = [];
    const logger = quietLogger();
    const apply = createEventApplier({
      ...handlers,
      logger,
      applied,
      failures,
      health,
      retryFirstMs: 100,
      retryMaxMs: 300,
      pause: async (ms) => {
        pauses.push(ms);
      },
      isStopping: stopping,
    });
    return { apply, applied, failures, health, pauses, logger, heartbeat: jest.fn(async () => undefined) };
  }

  it('when a deletion fails three times, then it is retried with a doubling, capped back-off (heartbeating) until it applies, with the account id lower-cased', async () => {
    let calls = 0;
    const onDeleted = jest.fn(async () => {
      if (++calls <= 3) throw new Error('postgres away');
      return 4;
    });
    const t = setup({ onDeleted });
    await t.apply(deleted, 2, '17', t.heartbeat);
    expect(onDeleted).toHaveBeenCalledTimes(4);
    expect(onDeleted).toHaveBeenCalledWith(ACCOUNT.toLowerCase(), deleted);
    expect(t.pauses).toEqual([100, 200, 300]);
    expect(t.heartbeat).toHaveBeenCalledTimes(3);
    expect((await t.failures.get()).values[0]?.value).toBe(3);
    expect((await t.applied.get()).values).toEqual([expect.objectContaining({ labels: { type: 'account.deleted' }, value: 1 })]);
    expect(t.logger.warnings[0]).toEqual({ err: 'postgres away', partition: 2, offset: '17' });
    expect(() => t.health.check()).toThrow('not running'); // running is the consumer's to say; no failure left behind
    t.health.running();
    expect(() => t.health.check()).not.toThrow();
  });

  it('when the service is stopping while an event fails, then it is abandoned (throws, uncommitted), not skipped', async () => {
    const t = setup(
      {
        onDeleted: async () => {
          throw new Error('down');
        },
      },
      () => true,
    );
    await expect(t.apply(deleted, 0, '1', t.heartbeat)).rejects.toThrow('stopping');
    expect(t.pauses).toEqual([]);
  });

  it('when a creation arrives and the service keeps nothing of it, then it is counted as applied without a call', async () => {
    const onDeleted = jest.fn(async () => 0);
    const t = setup({ onDeleted });
    await t.apply(created, 0, '1', t.heartbeat);
    expect(onDeleted).not.toHaveBeenCalled();
    expect((await t.applied.get()).values[0]).toEqual(expect.objectContaining({ labels: { type: 'account.created' }, value: 1 }));
  });

  it('when a creation arrives and the service has onCreated, then that is called, not onDeleted', async () => {
    const onDeleted = jest.fn(async () => 0);
    const onCreated = jest.fn(async () => undefined);
    const t = setup({ onDeleted, onCreated });
    await t.apply(created, 0, '1', t.heartbeat);
    expect(onCreated).toHaveBeenCalledWith(ACCOUNT.toLowerCase(), created);
    expect(onDeleted).not.toHaveBeenCalled();
  });
});

describe('createConsumerHealth', () => {
  it('reports not running with the last reason, then the time an event has been failing, then nothing once it applies', () => {
    const health = createConsumerHealth();
    expect(() => health.check()).toThrow(/^accounts consumer not running$/);
    health.failed('kafka unreachable');
    expect(() => health.check()).toThrow('accounts consumer not running (kafka unreachable)');
    health.running();
    expect(health.isRunning()).toBe(true);
    health.applyFailed(1000);
    health.applyFailed(5000); // the first failure is when it started
    expect(() => health.check(13_400)).toThrow('failing to apply an event for 12 s');
    health.applySucceeded();
    expect(() => health.check()).not.toThrow();
    health.stopped();
    expect(health.isRunning()).toBe(false);
  });
});

describe('wakeable pauses', () => {
  it('when wakeAll is called, then every pause and every registered wait ends at once; a forgotten wait is not called', async () => {
    const pauses = createWakeablePauses();
    const woken = jest.fn();
    const forgotten = jest.fn();
    pauses.onWake(woken);
    pauses.onWake(forgotten)();
    const long = pauses.pause(60_000);
    pauses.wakeAll();
    await long;
    expect(woken).toHaveBeenCalledTimes(1);
    expect(forgotten).not.toHaveBeenCalled();
  });

  it('doubles a delay up to its cap; waitAtMost gives up at its limit', async () => {
    expect(doubledDelay(200, 5000)).toBe(400);
    expect(doubledDelay(4000, 5000)).toBe(5000);
    const started = Date.now();
    await waitAtMost(new Promise(() => undefined), 20);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('superviseConsumer', () => {
  it('when starts fail, then it retries with a doubling back-off, counts restarts, and stops when asked', async () => {
    let stopping = false;
    const pauses: number[] = [];
    const failures: number[] = [];
    let runs = 0;
    const onRestart = jest.fn();
    await superviseConsumer({
      runOnce: async () => {
        if (++runs === 4) stopping = true;
        throw new Error('kafka unreachable');
      },
      isStopping: () => stopping,
      pause: async (ms) => {
        pauses.push(ms);
      },
      firstMs: 1000,
      maxMs: 3000,
      onRestart,
      onStartFailure: (_err, retryInMs) => failures.push(retryInMs),
      now: () => 0,
    });
    expect(runs).toBe(4);
    expect(pauses).toEqual([1000, 2000, 3000]);
    expect(failures).toEqual([1000, 2000, 3000, 3000]);
    expect(onRestart).toHaveBeenCalledTimes(3);
  });

  it('when a consumer ran longer than the longest back-off, then the back-off starts over', async () => {
    let clock = 0;
    let runs = 0;
    const pauses: number[] = [];
    await superviseConsumer({
      runOnce: async () => {
        runs++;
        if (runs === 3) clock += 10_000; // the third life ran a good while
      },
      isStopping: () => runs >= 4,
      pause: async (ms) => {
        pauses.push(ms);
      },
      firstMs: 1000,
      maxMs: 3000,
      onRestart: () => undefined,
      onStartFailure: () => undefined,
      now: () => clock,
    });
    expect(pauses).toEqual([1000, 2000, 1000]);
  });
});
