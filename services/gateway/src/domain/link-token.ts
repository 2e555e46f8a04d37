// Email-link tokens (`?gl=<token>` in campaign links): AES-256-GCM over {account, email, expiry},
// so a token is opaque (the email is never in clear), signed (the GCM tag: any change is refused),
// bound to its account and expiring. The key is derived from LINK_TOKEN_SECRET with HKDF-SHA-256,
// so rotating the secret invalidates every token issued before.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { COLLECT_LINK_TOKEN_MAX } from '@glimpse/api';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DAY_MS = 86_400_000;
/** version + iv + tag + at least one byte of payload */
const MIN_BYTES = 1 + IV_BYTES + TAG_BYTES + 1;

export interface IssuedLinkToken {
  token: string;
  expiresAt: Date;
}

export type LinkTokenCheck = { ok: true; email: string } | { ok: false; reason: 'link_invalid' | 'link_expired' | 'link_foreign_account' };

export interface LinkTokens {
  /** `email` normalised by the caller; `ttlDays` within the API's bounds. */
  issue(accountId: string, email: string, ttlDays: number, now?: Date): IssuedLinkToken;
  /** The token's email when it is intact, of `accountId` and not expired. */
  verify(token: string, accountId: string, now?: Date): LinkTokenCheck;
}

interface Payload {
  a: string;
  e: string;
  x: number;
}

const isPayload = (v: unknown): v is Payload =>
  typeof v === 'object' && v !== null && typeof (v as Payload).a === 'string' && typeof (v as Payload).e === 'string' && Number.isInteger((v as Payload).x);

export function createLinkTokens(secret: string): LinkTokens {
  const key = Buffer.from(hkdfSync('sha256', secret, 'glimpse', 'glimpse link tokens v1', 32));
  const header = Buffer.from([VERSION]);

  return {
    issue(accountId, email, ttlDays, now = new Date()) {
      const expiresAt = new Date(now.getTime() + ttlDays * DAY_MS);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(header);
      const payload: Payload = { a: accountId, e: email, x: Math.floor(expiresAt.getTime() / 1000) };
      const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
      return { token: Buffer.concat([header, iv, cipher.getAuthTag(), sealed]).toString('base64url'), expiresAt };
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
      return { ok: true, email: payload.e };
    },
  };
}
