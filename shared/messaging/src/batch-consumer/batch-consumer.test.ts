import { Registry } from 'prom-client';
import type { KafkaMessage } from 'kafkajs';
import { isInvalid } from './batch-consumer';
import { createConsumerMetrics } from './consumer-metrics';
import { deadLetterHeaders } from './dead-letters';
import { failureReason } from './failure-reason';
import { LagTracker } from './lag-tracker';
import { answersWithin, outageCheck } from './outage';
import { StoppedError } from './bisect';
import { createUntilDone, type PartitionLease } from './partition-lease';

const silent = { warn: () => undefined, debug: () => undefined } as never;

function lease(keepGoing: () => boolean): PartitionLease & { pauses: number[] } {
  const pauses: number[] = [];
  return { partition: 3, keepGoing, pauses, pause: async (ms) => void pauses.push(ms) };
}

describe('isInvalid', () => {
  it('when parse says why a message is invalid, then it is told apart from a value, primitives included', () => {
    expect(isInvalid({ invalid: 'not JSON' })).toBe(true);
    expect(isInvalid({ eventId: 'x' })).toBe(false);
    expect(isInvalid<string | null>('text')).toBe(false);
    expect(isInvalid<string | null>(null)).toBe(false);
  });
});

describe('failureReason', () => {
  it('when a driver error quotes values, then the reason keeps only names and codes', () => {
    const err = Object.assign(new Error('value "a@b.c" violates check'), {
      name: 'PrismaClientKnownRequestError',
      code: 'P2010',
      meta: { driverAdapterError: { cause: { kind: 'postgres', originalCode: '23514' } } },
    });
    expect(failureReason(err)).toBe('apply failed: PrismaClientKnownRequestError P2010 postgres sqlstate 23514');
    expect(failureReason(new Error('boom a@b.c'))).toBe('apply failed: unknown error');
    expect(failureReason(Object.assign(new Error('x'), { code: 'has "quotes"' }))).toBe('apply failed: unknown error');
  });
});

describe('deadLetterHeaders', () => {
  it('when a message is dead-lettered, then its origin, reason and attempts travel in headers', () => {
    const message = { offset: '41', key: null, value: null } as unknown as KafkaMessage;
    expect(deadLetterHeaders('visitors.collected', 7, message, 'not JSON', 1)).toEqual({
      'x-source-topic': 'visitors.collected',
      'x-source-partition': '7',
      'x-source-offset': '41',
      'x-reason': 'not JSON',
      'x-attempts': '1',
    });
  });
});

describe('createUntilDone', () => {
  it('when publishing fails twice, then it is retried with back-off until done and each failure is counted', async () => {
    let calls = 0;
    let retries = 0;
    const untilDone = createUntilDone({ backoffMs: (a) => a * 10, logger: silent, onRetry: () => retries++ });
    const t = lease(() => true);
    await untilDone(async () => {
      if (++calls < 3) throw new Error('broker down');
    }, t);
    expect(calls).toBe(3);
    expect(retries).toBe(2);
    expect(t.pauses).toEqual([10, 20]);
  });

  it('when the partition is no longer ours, then it gives up with StoppedError (the chunk is redelivered)', async () => {
    const untilDone = createUntilDone({ backoffMs: () => 1, logger: silent });
    await expect(
      untilDone(
        () => Promise.reject(new Error('down')),
        lease(() => false),
      ),
    ).rejects.toBeInstanceOf(StoppedError);
  });
});

describe('outageCheck', () => {
  it('when the error is a known dependency failure or the store does not answer in time, then it is an outage', async () => {
    const answering = outageCheck({ known: (e) => (e as { code?: string }).code === 'P2028', probe: async () => 1 });
    expect(await answering({ code: 'P2028' })).toBe(true);
    expect(await answering(new Error('check violated'))).toBe(false);
    const silentStore = outageCheck({ known: () => false, probe: () => new Promise(() => undefined), probeTimeoutMs: 20 });
    expect(await silentStore(new Error('x'))).toBe(true);
    expect(await answersWithin(() => Promise.reject(new Error('refused')))).toBe(false);
  });
});

describe('createConsumerMetrics', () => {
  it('when a partition is behind without progress, then lag, seconds since progress and stuck partitions are exported', async () => {
    let now = 0;
    const tracker = new LagTracker(1000, () => now);
    const registry = new Registry();
    createConsumerMetrics({ registry, tracker, stuckSetting: 'VISITORS_STUCK_AFTER_MS' });
    tracker.assign([2]);
    tracker.observe(2, { position: 10, end: 25 });
    now = 1500;
    const text = await registry.metrics();
    expect(text).toContain('glimpse_consumer_lag{partition="2"} 15');
    expect(text).toContain('glimpse_consumer_seconds_since_progress{partition="2"} 1.5');
    expect(text).toContain('glimpse_consumer_stuck_partitions 1');
    expect(text).toContain('longer than VISITORS_STUCK_AFTER_MS');
    expect(text).toContain('# TYPE glimpse_consumer_retries_total counter');
    expect(text).toContain('# TYPE glimpse_consumer_batch_size histogram');
  });
});
