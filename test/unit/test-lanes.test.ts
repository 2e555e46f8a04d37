// The test lanes (scripts/infra/lanes.js): each jest worker of `npm test` gets infrastructure that no
// other worker uses, derived from the ordinary local settings.
import path from 'node:path';

interface LaneInfra {
  lane: number;
  kafkaBrokers: string[];
  kafkaDir: string;
  testDatabaseName: string;
  redisUrl: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { laneOf, laneInfra, MAX_LANES } = require('../../scripts/infra/lanes.js') as {
  MAX_LANES: number;
  laneOf(env: Record<string, string | undefined>): number;
  laneInfra(lane: number, env: unknown): LaneInfra;
};

const env = {
  infraDir: '/repo/.infra',
  kafkaDir: '/repo/.infra/kafka',
  kafkaBrokers: ['127.0.0.1:9092'],
  testDatabaseName: 'glimpse_test',
  redisUrl: 'redis://127.0.0.1:6379',
};

describe('laneOf', () => {
  it('is the jest worker id, and lane 1 when jest runs in band or outside jest', () => {
    expect(laneOf({ JEST_WORKER_ID: '3' })).toBe(3);
    expect(laneOf({})).toBe(1);
    expect(laneOf({ JEST_WORKER_ID: 'x' })).toBe(1);
    // A run in band of its own (jest sets JEST_WORKER_ID to 1) picks its lane by name.
    expect(laneOf({ JEST_WORKER_ID: '1', GLIMPSE_TEST_LANE: '5' })).toBe(5);
  });
});

describe('laneInfra', () => {
  it('lane 1 is the ordinary local infrastructure', () => {
    const { infraDir: _infraDir, ...ordinary } = env;
    expect(laneInfra(1, env)).toEqual({ lane: 1, ...ordinary });
  });

  it('every lane has a broker, a broker directory, a test database and a Redis database no other lane has', () => {
    const all = Array.from({ length: MAX_LANES }, (_, i) => laneInfra(i + 1, env));
    for (const key of ['kafkaDir', 'testDatabaseName', 'redisUrl'] as const) expect(new Set(all.map((l) => l[key])).size).toBe(MAX_LANES);
    // A broker takes its port and the next (the KRaft controller): no lane's pair may overlap another's.
    const ports = all.flatMap(({ kafkaBrokers: [broker = ''] }) => {
      const port = Number(broker.split(':')[1]);
      return [port, port + 1];
    });
    expect(new Set(ports).size).toBe(2 * MAX_LANES);
  });

  it('lane k > 1 derives its settings from the ordinary ones', () => {
    expect(laneInfra(2, env)).toEqual({
      lane: 2,
      kafkaBrokers: ['127.0.0.1:9102'],
      kafkaDir: path.join('/repo/.infra', 'kafka-lane-2'),
      testDatabaseName: 'glimpse_test_2',
      redisUrl: 'redis://127.0.0.1:6379/1',
    });
  });

  it('refuses a lane it has no place for', () => {
    expect(() => laneInfra(0, env)).toThrow(/expected 1 to/);
    expect(() => laneInfra(MAX_LANES + 1, env)).toThrow(/expected 1 to/);
  });
});
