// The gateway's one authentication step: the credential the endpoint takes, its account kept in
// res.locals.accountId (and the credential's id in res.locals.credentialId) for the handlers
// after it. The client's address goes along for the per-address look-up limit.
import type { Request, RequestHandler, Response } from 'express';
import type { Authenticator, CredentialKind, Principal, Scope } from '@glimpse/auth';
import type { AddressLimiter } from '../data/address-limiter.js';
import { setRateLimitHeaders } from './rate-limit.js';

export interface AuthenticateOptions {
  /** Whose budget the headers of a refused credential describe (the address's look-ups). */
  rateHeaders?: AddressLimiter;
}

/** Authenticates `req` for a handler that does it itself (the same as the middleware below). */
export async function authenticateRequest(
  authenticator: Authenticator,
  required: { kind: CredentialKind; scope?: Scope },
  req: Request,
  res: Response,
  { rateHeaders }: AuthenticateOptions = {},
): Promise<Principal> {
  try {
    const principal = await authenticator.authenticate(req.headers.authorization, required, { ip: req.ip });
    res.locals.accountId = principal.accountId;
    res.locals.credentialId = principal.credentialId;
    return principal;
  } catch (err) {
    // The look-up may have used the address's budget: the answer shows what is left.
    if (rateHeaders) setRateLimitHeaders(res, rateHeaders.peek(req.ip));
    throw err;
  }
}

export function authenticate(
  authenticator: Authenticator,
  required: { kind: CredentialKind; scope?: Scope },
  options: AuthenticateOptions = {},
): RequestHandler {
  return async (req, res, next) => {
    await authenticateRequest(authenticator, required, req, res, options);
    next();
  };
}
