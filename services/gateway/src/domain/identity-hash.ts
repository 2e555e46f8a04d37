// Verified identity: a site's identity secret (`gis_…`, shown once), and the check of an identify's
// hash, HMAC-SHA256(secret, email trimmed and lower-cased) in lower-case hex, computed by the site's
// server. The previous secret of a rotation still verifies until it expires, so a site can roll its
// servers over without a gap.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { IDENTITY_HASH_PATTERN } from '@glimpse/api';

/** How long the previous secret keeps verifying after a rotation. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3_600_000;

/** `gis_` and 43 url-safe characters: 32 random bytes. */
export function generateIdentitySecret(): string {
  return `gis_${randomBytes(32).toString('base64url')}`;
}

/** What the site's server computes: lower-case hex HMAC-SHA256 of the email trimmed and lower-cased. */
export function identityHash(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email.trim().toLowerCase(), 'utf8').digest('hex');
}

/** A site's secrets as the collect path knows them (never logged, never sent on). */
export interface IdentitySecrets {
  identitySecret: string | null;
  previousIdentitySecret: string | null;
  previousIdentitySecretExpiresAt: Date | null;
}

/**
 * Whether `hash` is the HMAC of the email under the current secret or the previous one before it
 * expires. A missing or malformed hash (not 64 lower-case hex) is not verified. Compared in
 * constant time; every candidate is computed, so the time does not say which one matched.
 */
export function verifyIdentityHash(secrets: IdentitySecrets, email: string, hash: string | undefined, now = Date.now()): boolean {
  if (hash === undefined || !IDENTITY_HASH_PATTERN.test(hash)) return false;
  const given = Buffer.from(hash, 'hex');
  const candidates = [secrets.identitySecret];
  const expires = secrets.previousIdentitySecretExpiresAt;
  if (expires !== null && now < expires.getTime()) candidates.push(secrets.previousIdentitySecret);
  let ok = false;
  for (const secret of candidates) {
    if (secret === null) continue;
    const expected = createHmac('sha256', secret).update(email.trim().toLowerCase(), 'utf8').digest();
    if (timingSafeEqual(expected, given)) ok = true;
  }
  return ok;
}
