// The gateway's one authentication step: the credential the endpoint takes, its account kept in
// res.locals.accountId for the handlers after it.
import type { RequestHandler } from 'express';
import type { Authenticator, CredentialKind, Scope } from '@glimpse/auth';

export function authenticate(authenticator: Authenticator, required: { kind: CredentialKind; scope?: Scope }): RequestHandler {
  return async (req, res, next) => {
    const principal = await authenticator.authenticate(req.get('authorization'), required);
    res.locals.accountId = principal.accountId;
    next();
  };
}
