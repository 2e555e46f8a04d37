import type { KafkaHealthCheck } from '../kafka-health';
import { batchConsumerServiceReadiness } from './readiness';
import type { PartitionLag } from './lag-tracker';

const lag = (partition: number, behind: number, sinceProgressMs = 0) => ({ partition, lag: behind, sinceProgressMs }) as PartitionLag;

describe('batchConsumerServiceReadiness', () => {
  it("lists postgres, kafka, accounts and consumer in that order, the service's own checks as given", async () => {
    const postgres = jest.fn(async () => undefined);
    const accounts = jest.fn(async () => undefined);
    const kafkaHealth = { check: jest.fn(async () => undefined), close: jest.fn() } as unknown as KafkaHealthCheck;
    const consumer = { isRunning: () => true, lags: () => [lag(0, 3), lag(1, 0)], stuck: () => [] };
    const readiness = batchConsumerServiceReadiness(() => consumer, kafkaHealth, { postgres, accounts });

    expect(Object.keys(readiness.checks)).toEqual(['postgres', 'kafka', 'accounts', 'consumer']);
    expect(readiness.checks.postgres).toBe(postgres);
    expect(readiness.checks.accounts).toBe(accounts);
    await readiness.checks.kafka();
    await readiness.checks.consumer();
    expect(kafkaHealth.check).toHaveBeenCalled();
    expect(readiness.readinessDetail()).toEqual({ lag: { 0: 3, 1: 0 } });
  });

  it('is unready while the consumer is not running or a partition is stuck', async () => {
    const kafkaHealth = { check: jest.fn(async () => undefined) } as unknown as KafkaHealthCheck;
    const ok = async () => undefined;
    const stopped = batchConsumerServiceReadiness(() => ({ isRunning: () => false, lags: () => [], stuck: () => [] }), kafkaHealth, {
      postgres: ok,
      accounts: ok,
    });
    await expect(stopped.checks.kafka()).rejects.toThrow('consumer not running');
    const stuck = batchConsumerServiceReadiness(() => ({ isRunning: () => true, lags: () => [], stuck: () => [lag(4, 900, 61_000)] }), kafkaHealth, {
      postgres: ok,
      accounts: ok,
    });
    await expect(stuck.checks.consumer()).rejects.toThrow('stuck: partition 4, 900 behind, no progress for 61 s');
  });
});
