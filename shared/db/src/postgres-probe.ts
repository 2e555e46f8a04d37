// The one question readiness and the consumers' outage checks ask Postgres: does it answer now?

/** What the probe needs of a service's Prisma client (any of them). */
interface RawQueries {
  $queryRawUnsafe(query: string): PromiseLike<unknown>;
}

/** Resolves when Postgres answered `SELECT 1`; rejects with the driver's error otherwise. */
export function postgresProbe(db: RawQueries): () => Promise<void> {
  return async () => {
    await db.$queryRawUnsafe('SELECT 1');
  };
}
