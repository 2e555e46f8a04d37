// Prisma's error codes the services act on, by name, so each is written in one place.

/**
 * An interactive transaction that timed out, or was already closed when a statement came (P2028):
 * the database was too slow to answer in time, not the data wrong, so the work is retried whole.
 */
export const PRISMA_TRANSACTION_TIMEOUT = 'P2028';
