// Credential formats: API keys (glk_…) for the lookups and management, event tokens (gle_…) for
// POST /events. Only a SHA-256 hash is stored; the plain value is shown once, at creation.
import { createHash, randomBytes } from 'node:crypto';
import { SCOPES, isScope, type Scope } from '@glimpse/validation';

// The scope names are a rule of the public API, defined in @glimpse/validation; exported here too
// for the importers of @glimpse/auth.
export { SCOPES, isScope, type Scope };

export const CREDENTIAL_PREFIX = { api_key: 'glk_', event_token: 'gle_' } as const;
export type CredentialKind = keyof typeof CREDENTIAL_PREFIX;

/** Characters of the plain value kept for display (kind prefix plus 8). */
const DISPLAY_PREFIX_LENGTH = 12;
const SECRET_PATTERN = /^gl[ke]_[A-Za-z0-9_-]{43}$/;

export interface NewCredential {
  plain: string;
  prefix: string;
  hash: string;
}

export function hashCredential(plain: string): string {
  return createHash('sha256').update(plain).digest('hex');
}

export function generateCredential(kind: CredentialKind): NewCredential {
  const plain = CREDENTIAL_PREFIX[kind] + randomBytes(32).toString('base64url');
  return { plain, prefix: plain.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashCredential(plain) };
}

/** The kind a well-formed credential claims to be, or null for anything else. */
export function credentialKind(plain: string): CredentialKind | null {
  if (!SECRET_PATTERN.test(plain)) return null;
  return plain.startsWith(CREDENTIAL_PREFIX.api_key) ? 'api_key' : 'event_token';
}

/** The credential of an `Authorization: Bearer <credential>` header, or null. */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
