// The service-neutral part: the pool's settings, migrations, advisory locks, retention schedules.
// Each service's client is a subpath of its own (@glimpse/db/identity, /playbook, /enrichment,
// /webhooks, /visitors), holding only its schema's models.
export { postgresAdapter, DEFAULT_DB_TIMEOUTS } from './client.js';
export type { CreateDbOptions, DbTimeouts } from './client.js';
export { PRISMA_TRANSACTION_TIMEOUT } from './prisma-errors.js';
export { postgresProbe } from './postgres-probe.js';
export { migrate, ensureDatabase, migrationChecksum } from './migrate.js';
export type { MigrateOptions } from './migrate.js';
export { withAdvisoryLock, ADVISORY_LOCKS } from './advisory-lock.js';
export type { AdvisoryLock } from './advisory-lock.js';
export { scheduleRecurringPurge } from './recurring-purge.js';
export type { RecurringPurgeOptions, PurgeLogger } from './recurring-purge.js';
export { columns } from './columns.js';
export type { Column } from './columns.js';
export { camelRow } from './rows.js';
export type { CamelCase, CamelRow } from './rows.js';
export { newestFirstPage } from './paging.js';
export type { PageCursor } from './paging.js';
