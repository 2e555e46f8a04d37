// Sites in identity.sites (the gateway's schema): an account's sites, and the one a key names for
// POST /collect. Another account's site is not found, never changed.
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import { generateSiteKey, type SiteFields } from '../domain/site-input.js';

export interface SiteRecord extends SiteFields {
  id: string;
  accountId: string;
  key: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What collecting needs of a site. */
export type CollectSite = Pick<SiteRecord, 'id' | 'accountId' | 'origins' | 'trackEvents'>;

const columns = { id: true, accountId: true, name: true, key: true, origins: true, trackEvents: true, createdAt: true, updatedAt: true } as const;

const notFound = (id: string) => new AppError('not_found', `site ${id} does not exist in this account`);

export async function createSite(db: Db, accountId: string, fields: SiteFields, { maxPerAccount }: { maxPerAccount: number }): Promise<SiteRecord> {
  return db.$transaction(async (tx) => {
    // The account row's lock serialises creations of one account, so the cap holds under concurrency.
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    if (locked.length === 0) throw new AppError('not_found', `account ${accountId} does not exist`);
    if ((await tx.site.count({ where: { accountId } })) >= maxPerAccount) {
      throw new AppError('limit_reached', `an account has at most ${maxPerAccount} sites; delete one first`);
    }
    return tx.site.create({ data: { accountId, key: generateSiteKey(), ...fields }, select: columns });
  });
}

export async function listSites(db: Db, accountId: string): Promise<SiteRecord[]> {
  return db.site.findMany({ where: { accountId }, select: columns, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export async function getSite(db: Db, accountId: string, id: string): Promise<SiteRecord> {
  const site = isUuid(id) ? await db.site.findFirst({ where: { id, accountId }, select: columns }) : null;
  if (!site) throw notFound(id);
  return site;
}

export async function updateSite(db: Db, accountId: string, id: string, changes: Partial<SiteFields>): Promise<SiteRecord> {
  if (!isUuid(id)) throw notFound(id);
  const { count } = await db.site.updateMany({ where: { id, accountId }, data: { ...changes, updatedAt: new Date() } });
  if (count === 0) throw notFound(id);
  return getSite(db, accountId, id);
}

export async function deleteSite(db: Db, accountId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound(id);
  const { count } = await db.site.deleteMany({ where: { id, accountId } });
  if (count === 0) throw notFound(id);
}

export async function findSiteByKey(db: Db, key: string): Promise<CollectSite | null> {
  return db.site.findUnique({ where: { key }, select: { id: true, accountId: true, origins: true, trackEvents: true } });
}
