// Revocations of email-link tokens, as rows of identity.link_token_revocations: one token by its id,
// every token of the account issued up to a time ("*"), or every token of an email issued up to a
// time ("email:<keyed hash>", written when the person is erased). A row is kept until no token it
// can stop is still current (`expiresAt`), then purged.
import { LINK_TOKEN_TTL_DAYS } from '@glimpse/api';
import { LONGEST_LINK_TOKEN_DAYS, type VerifiedLinkToken } from './link-token.js';

const DAY_MS = 86_400_000;
export const ALL_TOKENS = '*';
export const emailTokenId = (emailKey: string) => `email:${emailKey}`;

export interface RevocationRow {
  tokenId: string;
  /** For "*" and an email: the tokens issued at or before it are dead. Null for one token (by id). */
  revokedBefore: Date | null;
  expiresAt: Date;
}

/** One token: every token with an id was issued for at most the API's maximum. */
export const revokeOne = (id: string, now: Date): RevocationRow => ({
  tokenId: id,
  revokedBefore: null,
  expiresAt: new Date(now.getTime() + LINK_TOKEN_TTL_DAYS.max * DAY_MS),
});

/** Every token of the account issued so far; kept as long as the longest token ever issued lives. */
export const revokeAll = (now: Date): RevocationRow => ({
  tokenId: ALL_TOKENS,
  revokedBefore: now,
  expiresAt: new Date(now.getTime() + LONGEST_LINK_TOKEN_DAYS * DAY_MS),
});

/** Every token of an erased email issued so far (by its keyed hash), for as long. */
export const revokeEmail = (emailKey: string, now: Date): RevocationRow => ({ ...revokeAll(now), tokenId: emailTokenId(emailKey) });

/** The rows that can stop this token: its id's, the account's "*" and its email's. */
export const revocationIdsOf = (token: Pick<VerifiedLinkToken, 'id'>, emailKey: string): string[] => [
  ALL_TOKENS,
  emailTokenId(emailKey),
  ...(token.id !== null ? [token.id] : []),
];

/** Whether any of the rows (current ones, of the token's account) stops the token. */
export function isRevoked(
  token: Pick<VerifiedLinkToken, 'id' | 'issuedAt'>,
  emailKey: string,
  rows: readonly Pick<RevocationRow, 'tokenId' | 'revokedBefore'>[],
): boolean {
  return rows.some((row) => {
    if (token.id !== null && row.tokenId === token.id) return true;
    if (row.tokenId !== ALL_TOKENS && row.tokenId !== emailTokenId(emailKey)) return false;
    return row.revokedBefore !== null && token.issuedAt <= row.revokedBefore.getTime();
  });
}
