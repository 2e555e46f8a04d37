// A database of one test file's own, migrated like the test database: for a test whose timing
// would be disturbed by another webhooks service's dispatcher claiming its deliveries from the
// shared test database (a claim takes due deliveries of every account, by design). Dropped and
// made again at each run.
import path from 'node:path';
import pg from 'pg';
import { DATABASE_ROLES, roleDatabaseUrl } from '@glimpse/config';
import { ensureDatabase, migrate } from '@glimpse/db';
import { createDb, type Db } from '@glimpse/db/webhooks';
import { testDatabaseUrl } from '../../../../test/config';

export interface PrivateDatabase {
  /** As the migration role (superuser here). */
  url: string;
  /** As the webhooks service's own role, for its DATABASE_URL. */
  webhooksUrl: string;
  db: Db;
  drop(): Promise<void>;
}

async function dropDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = decodeURIComponent(admin.pathname.slice(1));
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function privateDatabase(name: string): Promise<PrivateDatabase> {
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  await dropDatabase(url.toString());
  await ensureDatabase(url.toString());
  await migrate({ databaseUrl: url.toString(), migrationsDir: path.join(__dirname, '..', '..', '..', '..', 'prisma', 'migrations') });
  const db = createDb({ databaseUrl: url.toString(), poolSize: 4 });
  return {
    url: url.toString(),
    webhooksUrl: roleDatabaseUrl(url.toString(), DATABASE_ROLES.webhooks),
    db,
    async drop() {
      await db.$disconnect();
      await dropDatabase(url.toString());
    },
  };
}
