export { createDb, DEFAULT_DB_TIMEOUTS } from './client.js';
export type { Db, CreateDbOptions, DbTimeouts } from './client.js';
export { Prisma } from './generated/prisma/client.js';
export type * from './generated/prisma/client.js';
export { migrate, ensureDatabase, migrationChecksum } from './migrate.js';
export type { MigrateOptions } from './migrate.js';
export { withAdvisoryLock, ADVISORY_LOCKS } from './advisory-lock.js';
export type { AdvisoryLock } from './advisory-lock.js';
