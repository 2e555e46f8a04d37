// Sites in identity.sites (the gateway's schema): an account's sites, and the one a key names for
// POST /collect. Another account's site is not found, never changed.
import { MAX_SITES_PER_ACCOUNT, type IdentityVerificationMode, type SiteConsentMode } from '@glimpse/api';
import type { Db } from '@glimpse/db/identity';
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import { generateIdentitySecret, PREVIOUS_SECRET_OVERLAP_MS, type IdentitySecrets } from '../domain/identity-hash.js';
import { generateSiteKey, type SiteFields } from '../domain/site-input.js';
import type { UpstreamResponse } from './internal-service.js';
import type { VisitorsClient } from './visitors-client.js';

export interface SiteRecord extends SiteFields {
  id: string;
  accountId: string;
  key: string;
  /** Whether the site has an identity secret (the secret itself is answered only when made). */
  identitySecretSet: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What collecting needs of a site, and whether its account has the workflows add-on (page rules and tracks are of it). */
export type CollectSite = Pick<
  SiteRecord,
  'id' | 'accountId' | 'origins' | 'trackEvents' | 'captureForms' | 'consent' | 'honorGpc' | 'queryKeys' | 'identityVerification'
> & {
  workflows: boolean;
  /** New visitor ids per UTC day (null: the gateway's default, NEW_VISITORS_PER_SITE_PER_DAY). */
  newVisitorsPerDay?: number | null;
  /** Secrets: they check identify hashes and go nowhere else (no log, no message). */
  identity: IdentitySecrets;
};

const settingColumns = { captureForms: true, consent: true, honorGpc: true, queryKeys: true, identityVerification: true, newVisitorsPerDay: true } as const;
const columns = {
  id: true,
  accountId: true,
  name: true,
  key: true,
  origins: true,
  trackEvents: true,
  ...settingColumns,
  identitySecret: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** The column is text (checked by the API's schema on the way in); anything else reads as the stricter mode. */
const consentMode = (value: string): SiteConsentMode => (value === 'implied' ? 'implied' : 'required');
/** The same for the verification mode: an unknown value verifies as strictly as "required". */
const verificationMode = (value: string): IdentityVerificationMode => (value === 'off' || value === 'optional' ? value : 'required');
const toSettings = <T extends { consent: string; identityVerification: string }>(
  row: T,
): Omit<T, 'consent' | 'identityVerification'> & { consent: SiteConsentMode; identityVerification: IdentityVerificationMode } => ({
  ...row,
  consent: consentMode(row.consent),
  identityVerification: verificationMode(row.identityVerification),
});
const toRecord = <T extends { consent: string; identityVerification: string; identitySecret: string | null }>({ identitySecret, ...row }: T) => ({
  ...toSettings(row),
  identitySecretSet: identitySecret !== null,
});

const notFound = (id: string) => new AppError('not_found', `site ${id} does not exist in this account`);

export async function createSite(
  db: Db,
  accountId: string,
  fields: SiteFields,
  { maxPerAccount = MAX_SITES_PER_ACCOUNT }: { maxPerAccount?: number } = {},
): Promise<SiteRecord & { identitySecret: string }> {
  return db.$transaction(async (tx) => {
    // The account row's lock serialises creations of one account, so the cap holds under concurrency.
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    if (locked.length === 0) throw new AppError('not_found', `account ${accountId} does not exist`);
    if ((await tx.site.count({ where: { accountId } })) >= maxPerAccount) {
      throw new AppError('limit_reached', `an account has at most ${maxPerAccount} sites; delete one first`);
    }
    const identitySecret = generateIdentitySecret();
    const site = toRecord(await tx.site.create({ data: { accountId, key: generateSiteKey(), identitySecret, ...fields }, select: columns }));
    return { ...site, identitySecret };
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
    select: {
      id: true,
      accountId: true,
      origins: true,
      trackEvents: true,
      ...settingColumns,
      identitySecret: true,
      previousIdentitySecret: true,
      previousIdentitySecretExpiresAt: true,
      account: { select: { workflows: true } },
    },
  });
  if (!site) return null;
  const { account, identitySecret, previousIdentitySecret, previousIdentitySecretExpiresAt, ...fields } = site;
  return { ...toSettings(fields), workflows: account.workflows, identity: { identitySecret, previousIdentitySecret, previousIdentitySecretExpiresAt } };
}

/**
 * A new identity secret for the site, answered once; the current one becomes the previous and
 * still verifies for PREVIOUS_SECRET_OVERLAP_MS (a site without one, from before identity secrets,
 * gets its first and no previous). One statement, so two rotations at once each keep a sound pair.
 */
export async function rotateIdentitySecret(db: Db, accountId: string, id: string): Promise<{ identitySecret: string; previousExpiresAt: Date | null }> {
  if (!isUuid(id)) throw notFound(id);
  const identitySecret = generateIdentitySecret();
  const rows = await db.$queryRaw<{ expires: Date | null }[]>`
    UPDATE sites SET previous_identity_secret = identity_secret,
      previous_identity_secret_expires_at = CASE WHEN identity_secret IS NULL THEN NULL ELSE now() + ${PREVIOUS_SECRET_OVERLAP_MS} * interval '1 millisecond' END,
      identity_secret = ${identitySecret}, updated_at = now()
    WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid
    RETURNING previous_identity_secret_expires_at AS expires`;
  const row = rows[0];
  if (!row) throw notFound(id);
  return { identitySecret, previousExpiresAt: row.expires === null ? null : new Date(row.expires) };
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
