// Email-link tokens (`?gl=<token>` in campaign links): AES-256-GCM over {account, email, expiry, id,
// issue time}, so a token is opaque (the email is never in clear), signed (the GCM tag: any change
// is refused), bound to its account and expiring. The key is derived from LINK_TOKEN_SECRET with
// HKDF-SHA-256, so rotating the secret invalidates every token issued before. The id and the issue
// time are what a revocation names (one token, or all those issued before a time).
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { COLLECT_LINK_TOKEN_MAX } from '@glimpse/api';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DAY_MS = 86_400_000;
/** version + iv + tag + at least one byte of payload */
const MIN_BYTES = 1 + IV_BYTES + TAG_BYTES + 1;
/** The longest any token ever issued can live: 365 days before the maximum came down to 90. What a revocation of "all" or of an erased email is kept for. */
export const LONGEST_LINK_TOKEN_DAYS = 365;
export const LINK_TOKEN_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export interface IssuedLinkToken {
  token: string;
  /** Random, 22 base64url characters: what DELETE /account/link-tokens/{id} names. */
  id: string;
  expiresAt: Date;
}

/** A valid token: its email, its id (null for a token issued before ids) and its issue time (0 when it has none). */
export interface VerifiedLinkToken {
  ok: true;
  email: string;
  id: string | null;
  issuedAt: number;
}
export type LinkTokenCheck =
  VerifiedLinkToken | { ok: false; reason: 'link_invalid' | 'link_expired' | 'link_foreign_account' | 'link_revoked' | 'link_unchecked' };

export interface LinkTokens {
  /** `email` normalised by the caller; `ttlDays` within the API's bounds. */
  issue(accountId: string, email: string, ttlDays: number, now?: Date): IssuedLinkToken;
  /** The token's email when it is intact, of `accountId` and not expired (revocations are checked apart). */
  verify(token: string, accountId: string, now?: Date): LinkTokenCheck;
  /** The keyed hash of a normalised email that names it in a revocation (never the email itself). */
  emailKey(email: string): string;
}

interface Payload {
  a: string;
  e: string;
  x: number;
  /** id and issue time (ms); absent from tokens issued before revocation existed */
  i?: string;
  t?: number;
}

const isPayload = (v: unknown): v is Payload => {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Payload;
  return (
    typeof p.a === 'string' &&
    typeof p.e === 'string' &&
    Number.isInteger(p.x) &&
    (p.i === undefined || typeof p.i === 'string') &&
    (p.t === undefined || Number.isInteger(p.t))
  );
};

export function createLinkTokens(secret: string): LinkTokens {
  const key = Buffer.from(hkdfSync('sha256', secret, 'glimpse', 'glimpse link tokens v1', 32));
  const emailHashKey = Buffer.from(hkdfSync('sha256', secret, 'glimpse', 'glimpse link token emails v1', 32));
  const header = Buffer.from([VERSION]);

  return {
    issue(accountId, email, ttlDays, now = new Date()) {
      const expiresAt = new Date(now.getTime() + ttlDays * DAY_MS);
      const id = randomBytes(16).toString('base64url');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(header);
      const payload: Payload = { a: accountId, e: email, x: Math.floor(expiresAt.getTime() / 1000), i: id, t: now.getTime() };
      const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
      return { token: Buffer.concat([header, iv, cipher.getAuthTag(), sealed]).toString('base64url'), id, expiresAt };
    },
    verify(token, accountId, now = new Date()) {
      if (token.length > COLLECT_LINK_TOKEN_MAX || !/^[A-Za-z0-9_-]+$/.test(token)) return { ok: false, reason: 'link_invalid' };
      const bytes = Buffer.from(token, 'base64url');
      if (bytes.length < MIN_BYTES || bytes[0] !== VERSION) return { ok: false, reason: 'link_invalid' };
      let payload: unknown;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES));
        decipher.setAAD(header);
        decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
        payload = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8'));
      } catch {
        return { ok: false, reason: 'link_invalid' };
      }
      if (!isPayload(payload)) return { ok: false, reason: 'link_invalid' };
      if (payload.a !== accountId) return { ok: false, reason: 'link_foreign_account' };
      if (payload.x * 1000 <= now.getTime()) return { ok: false, reason: 'link_expired' };
      return { ok: true, email: payload.e, id: payload.i ?? null, issuedAt: payload.t ?? 0 };
    },
    emailKey(email) {
      return createHmac('sha256', emailHashKey).update(email).digest('hex');
    },
  };
}
