// Before the integration suite: the real infrastructure is up (Kafka, Redis, the Redis Cluster, Postgres),
// with a lane of its own for each jest worker (a broker and a test database: scripts/infra/lanes.js),
// and each lane's test database is migrated with the same runner production uses.
import path from 'node:path';
import { ensureDatabase, migrate } from '../shared/db/src/migrate';
import { MAX_LANES, laneTestDatabaseUrl, pinnedLane } from './config';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const infra = require('../scripts/infra/up.js') as { up(options?: { redisCluster?: boolean; lanes?: number }): Promise<void> };

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const lanes = globalConfig.maxWorkers;
  if (lanes > MAX_LANES) {
    throw new Error(`the integration tests run in at most ${MAX_LANES} jest workers, one test lane each (--maxWorkers=${lanes} asked for more)`);
  }
  // A run in band given a lane of its own (GLIMPSE_TEST_LANE) needs that lane's broker and database too.
  const pinned = pinnedLane();
  await infra.up({ redisCluster: true, lanes: Math.max(lanes, pinned ?? 1) });
  // One after the other: the first migration of a database creates the roles every lane shares.
  for (const lane of new Set([...Array.from({ length: lanes }, (_, i) => i + 1), ...(pinned === undefined ? [] : [pinned])])) {
    const databaseUrl = laneTestDatabaseUrl(lane);
    await ensureDatabase(databaseUrl);
    await migrate({ databaseUrl, migrationsDir: path.join(__dirname, '..', 'prisma', 'migrations') });
  }
}
