import type { Db } from '@glimpse/db';
import { createAuthenticator } from './authenticator';
import { generateCredential } from './credentials';

/** Just enough of the Prisma client for the authenticator: one event token row, counted reads. */
function tokenStore(row: { id: string; accountId: string; hash: string; revokedAt: Date | null }) {
  const reads = { count: 0 };
  const db = {
    eventToken: {
      findUnique: async ({ where }: { where: { hash: string } }) => {
        reads.count += 1;
        await new Promise((r) => setTimeout(r, 5));
        return where.hash === row.hash ? row : null;
      },
    },
    $executeRaw: () => Promise.resolve(1),
  } as unknown as Db;
  return { db, reads };
}

describe('authenticator cache', () => {
  const token = generateCredential('event_token');
  const row = { id: '0d8c4a9e-51a2-4c3e-9c1f-6f1d2a3b4c5d', accountId: 'a1b2c3d4-0000-4000-8000-000000000001', hash: token.hash, revokedAt: null as Date | null };

  it('when many requests with one token arrive at once, then the database is read once', async () => {
    const { db, reads } = tokenStore(row);
    const auth = createAuthenticator({ db, cacheTtlMs: 60_000 });
    const principals = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(`Bearer ${token.plain}`, { kind: 'event_token' })));
    expect(principals.every((p) => p.accountId === row.accountId)).toBe(true);
    expect(reads.count).toBe(1);
  });

  it('when the cache time has passed, then a revocation is seen', async () => {
    const stored = { ...row };
    const { db } = tokenStore(stored);
    const auth = createAuthenticator({ db, cacheTtlMs: 20 });
    await auth.authenticate(`Bearer ${token.plain}`, { kind: 'event_token' });
    stored.revokedAt = new Date();
    await new Promise((r) => setTimeout(r, 30));
    await expect(auth.authenticate(`Bearer ${token.plain}`, { kind: 'event_token' })).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
