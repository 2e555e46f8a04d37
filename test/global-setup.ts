// Before the integration suite: the real infrastructure is up (Kafka, Redis, the Redis Cluster, Postgres) and the
// test database is migrated with the same runner production uses.
import path from 'node:path';
import { ensureDatabase, migrate } from '../shared/db/src/migrate';
import { testDatabaseUrl } from './config';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const infra = require('../scripts/infra/up.js') as { up(options?: { redisCluster?: boolean }): Promise<void> };

export default async function globalSetup(): Promise<void> {
  await infra.up({ redisCluster: true });
  const databaseUrl = testDatabaseUrl();
  await ensureDatabase(databaseUrl);
  await migrate({ databaseUrl, migrationsDir: path.join(__dirname, '..', 'prisma', 'migrations') });
}
