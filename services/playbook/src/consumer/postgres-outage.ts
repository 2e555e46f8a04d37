// Which failures of a chunk are Postgres's, not the messages': the chunk is then retried whole
// instead of bisected and dead-lettered.
import { PRISMA_TRANSACTION_TIMEOUT } from '@glimpse/db';
import { dependencyFailure } from '@glimpse/errors';

/** Postgres down or not reachable (dependencyFailure), or a transaction that timed out (Prisma's P2028). */
export function knownPostgresOutage(err: unknown): boolean {
  return dependencyFailure(err) !== null || (err as { code?: unknown }).code === PRISMA_TRANSACTION_TIMEOUT;
}
