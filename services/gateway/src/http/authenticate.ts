// The gateway's one authentication step: the credential the endpoint takes, its account kept in
// res.locals.accountId (and the credential's id in res.locals.credentialId) for the handlers
// after it. The client's address goes along for the per-address look-up limit.
import type { RequestHandler } from 'express';
import type { Authenticator, CredentialKind, Scope } from '@glimpse/auth';
import type { AddressLimiter } from '../data/address-limiter.js';
import { setRateLimitHeaders } from './rate-limit.js';

export function authenticate(
  authenticator: Authenticator,
  required: { kind: CredentialKind; scope?: Scope },
  { rateHeaders }: { rateHeaders?: AddressLimiter } = {},
): RequestHandler {
  return async (req, res, next) => {
    try {
      const principal = await authenticator.authenticate(req.get('authorization'), required, { ip: req.ip });
      res.locals.accountId = principal.accountId;
      res.locals.credentialId = principal.credentialId;
    } catch (err) {
      // The look-up may have used the address's budget: the answer shows what is left.
      if (rateHeaders) setRateLimitHeaders(res, rateHeaders.peek(req.ip));
      throw err;
    }
    next();
  };
}
