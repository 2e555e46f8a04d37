export { createDb } from './client.js';
export type { Db, CreateDbOptions } from './client.js';
export { Prisma } from './generated/prisma/client.js';
export type * from './generated/prisma/client.js';
export { migrate, ensureDatabase, migrationChecksum } from './migrate.js';
export type { MigrateOptions } from './migrate.js';
