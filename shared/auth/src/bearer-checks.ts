// The checks of an Authorization header that need no database: a bearer credential is there, and
// it is of the kind the endpoint takes; and, once known, that an API key has the scope required.
import { AppError } from '@glimpse/errors';
import { credentialKind, parseBearer, type CredentialKind, type Scope } from './credentials.js';

/** The plain credential of the header; throws 401 when there is none or it is of another kind. */
export function requireCredentialOfKind(header: string | undefined, required: CredentialKind): string {
  const plain = parseBearer(header);
  if (!plain) throw new AppError('unauthorized', 'missing bearer credential: send Authorization: Bearer <credential>');
  const expected = required === 'event_token' ? 'an event token' : 'an API key';
  if (credentialKind(plain) !== required) throw new AppError('unauthorized', `invalid credential: this endpoint takes ${expected}`);
  return plain;
}

/** Throws 403 when a scope is required and the credential lacks it. */
export function requireScope(scopes: readonly string[], scope: Scope | undefined): void {
  if (scope && !scopes.includes(scope)) throw new AppError('forbidden', `this API key lacks the scope ${scope}`);
}
