// Sites in identity.sites (the gateway's schema): an account's sites, and the one a key names for
// POST /collect. Another account's site is not found, never changed.
import { MAX_SITES_PER_ACCOUNT, type SiteConsentMode } from '@glimpse/api';
import type { Db } from '@glimpse/db/identity';
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import { generateSiteKey, type SiteFields } from '../domain/site-input.js';
import type { UpstreamResponse } from './internal-service.js';
import type { VisitorsClient } from './visitors-client.js';

export interface SiteRecord extends SiteFields {
  id: string;
  accountId: string;
  key: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What collecting needs of a site, and whether its account has the workflows add-on (page rules and tracks are of it). */
export type CollectSite = Pick<SiteRecord, 'id' | 'accountId' | 'origins' | 'trackEvents' | 'captureForms' | 'consent' | 'honorGpc' | 'queryKeys'> & {
  workflows: boolean;
  /** New visitor ids per UTC day (null: the gateway's default, NEW_VISITORS_PER_SITE_PER_DAY). */
  newVisitorsPerDay?: number | null;
};

const settingColumns = { captureForms: true, consent: true, honorGpc: true, queryKeys: true } as const;
const columns = {
  id: true,
  accountId: true,
  name: true,
  key: true,
  origins: true,
  trackEvents: true,
  ...settingColumns,
  createdAt: true,
  updatedAt: true,
} as const;

/** The column is text (checked by the API's schema on the way in); anything else reads as the stricter mode. */
const consentMode = (value: string): SiteConsentMode => (value === 'implied' ? 'implied' : 'required');
const toRecord = <T extends { consent: string }>(row: T): Omit<T, 'consent'> & { consent: SiteConsentMode } => ({ ...row, consent: consentMode(row.consent) });

const notFound = (id: string) => new AppError('not_found', `site ${id} does not exist in this account`);

export async function createSite(
  db: Db,
  accountId: string,
  fields: SiteFields,
  { maxPerAccount = MAX_SITES_PER_ACCOUNT }: { maxPerAccount?: number } = {},
): Promise<SiteRecord> {
  return db.$transaction(async (tx) => {
    // The account row's lock serialises creations of one account, so the cap holds under concurrency.
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    if (locked.length === 0) throw new AppError('not_found', `account ${accountId} does not exist`);
    if ((await tx.site.count({ where: { accountId } })) >= maxPerAccount) {
      throw new AppError('limit_reached', `an account has at most ${maxPerAccount} sites; delete one first`);
    }
    return toRecord(await tx.site.create({ data: { accountId, key: generateSiteKey(), ...fields }, select: columns }));
  });
}

export async function listSites(db: Db, accountId: string): Promise<SiteRecord[]> {
  return (await db.site.findMany({ where: { accountId }, select: columns, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })).map(toRecord);
}

export async function getSite(db: Db, accountId: string, id: string): Promise<SiteRecord> {
  const site = isUuid(id) ? await db.site.findFirst({ where: { id, accountId }, select: columns }) : null;
  if (!site) throw notFound(id);
  return toRecord(site);
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
  const site = await db.site.findUnique({
    where: { key },
    select: { id: true, accountId: true, origins: true, trackEvents: true, ...settingColumns, newVisitorsPerDay: true, account: { select: { workflows: true } } },
  });
  if (!site) return null;
  const { account, ...fields } = site;
  return { ...toRecord(fields), workflows: account.workflows };
}

/**
 * Deletes a site with its data: the visitors service's first (idempotent), then the row, so a
 * failure there leaves the site in place for a retry that deletes both. Answers the visitors
 * service's refusal when it had one (the caller relays it), else null.
 */
export async function removeSite(db: Db, visitors: VisitorsClient, accountId: string, id: string): Promise<UpstreamResponse | null> {
  const site = await getSite(db, accountId, id);
  const upstream = await visitors.call('DELETE', `/internal/sites/${site.id}`, accountId);
  if (upstream.status >= 300 && upstream.status !== 404) return upstream;
  await deleteSite(db, accountId, site.id);
  return null;
}
