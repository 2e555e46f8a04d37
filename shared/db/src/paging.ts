// Keyset paging, newest first: the rows ordered by a time and then id (both descending), a page
// holding those strictly after the previous page's last (its time and id, the cursor).

/** Where the previous page ended: its last row's time and id. */
export interface PageCursor {
  at: Date;
  id: string;
}

/** The Prisma findMany arguments of one page, newest first by `field` then id: spread `where` into the query's own. */
export function newestFirstPage<F extends string>(field: F, { limit, after }: { limit: number; after: PageCursor | null }) {
  const strictlyAfter = after
    ? {
        OR: [{ [field]: { lt: after.at } } as Record<F, { lt: Date }>, { [field]: after.at, id: { lt: after.id } } as Record<F, Date> & { id: { lt: string } }],
      }
    : {};
  return {
    where: strictlyAfter,
    orderBy: [{ [field]: 'desc' } as Record<F, 'desc'>, { id: 'desc' as const }],
    take: limit,
  };
}
