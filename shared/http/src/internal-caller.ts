// Guards a service's internal HTTP API. Each calling service proves itself with its own token
// (x-glimpse-internal-token); the callee knows each caller's token by its SHA-256 digest
// (INTERNAL_TOKENS), so it learns which service is calling, and allows that caller only the
// routes its table gives it. No or an unknown token: 401; a known caller on a route that is not
// its own: 403. The request names the authenticated account in a header (res.locals.accountId).
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler, type Response, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';

export const INTERNAL_HEADERS = { token: 'x-glimpse-internal-token', account: 'x-glimpse-account-id' } as const;

/**
 * Which caller may call which route: '*' (every /internal route), or routes written
 * "METHOD /internal/path/:param" (a :param matches one path segment).
 */
export type InternalRouteTable = Record<string, '*' | readonly string[]>;

interface CompiledRoute {
  method: string;
  segments: readonly (string | null)[];
}

function compileRoute(route: string): CompiledRoute {
  const [method, path, extra] = route.trim().split(/\s+/);
  if (!method || !path?.startsWith('/internal/') || extra !== undefined) throw new Error(`internal route "${route}": expected "METHOD /internal/…"`);
  return {
    method: method.toUpperCase(),
    segments: path
      .split('/')
      .slice(1)
      .map((s) => (s.startsWith(':') ? null : s)),
  };
}

function matches(route: CompiledRoute, method: string, segments: readonly string[]): boolean {
  if (route.method !== method || route.segments.length !== segments.length) return false;
  return route.segments.every((s, i) => (s === null ? segments[i]!.length > 0 : s === segments[i]));
}

/** The caller whose token digest this is, comparing with every caller's in constant time (no early exit). */
function callerOf(given: string | undefined, digests: ReadonlyArray<[string, Buffer]>): string | undefined {
  if (!given) return undefined;
  const digest = createHash('sha256').update(given).digest();
  let found: string | undefined;
  for (const [caller, expected] of digests) {
    if (timingSafeEqual(digest, expected) && found === undefined) found = caller;
  }
  return found;
}

export interface InternalCallersOptions {
  /** Each accepted caller's token as SHA-256 hex (the parsed INTERNAL_TOKENS). */
  tokens: Partial<Record<string, string>>;
  /** Which caller may call which route. */
  routes: InternalRouteTable;
}

/** The guard of `/internal`: mount it as `router.use('/internal', internalCallers(…))`. Sets res.locals.caller and res.locals.accountId. */
export function internalCallers({ tokens, routes }: InternalCallersOptions): RequestHandler {
  const digests: Array<[string, Buffer]> = Object.entries(tokens)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([caller, hex]) => [caller, Buffer.from(hex, 'hex')]);
  for (const [caller, digest] of digests) if (digest.length !== 32) throw new Error(`internal token of ${caller}: not a SHA-256 digest`);
  const table = new Map(Object.entries(routes).map(([caller, allowed]) => [caller, allowed === '*' ? ('*' as const) : allowed.map(compileRoute)]));
  return (req, res, next) => {
    const caller = callerOf(req.get(INTERNAL_HEADERS.token), digests);
    if (caller === undefined) throw new AppError('unauthorized', 'internal endpoint: no or an unknown internal token');
    const allowed = table.get(caller);
    const segments = (req.baseUrl + req.path).split('/').slice(1);
    if (!allowed || (allowed !== '*' && !allowed.some((r) => matches(r, req.method, segments)))) {
      throw new AppError('forbidden', `internal endpoint: the ${caller} service may not call this route`);
    }
    const accountId = req.get(INTERNAL_HEADERS.account);
    if (!accountId || !isUuid(accountId)) throw new AppError('invalid_request', `missing or invalid ${INTERNAL_HEADERS.account}`);
    res.locals.caller = caller;
    res.locals.accountId = accountId;
    next();
  };
}

/** An /internal API that only the gateway calls, each call for the account the gateway names. */
export interface GatewayInternalRouter {
  /** Guarded: every /internal route open to the gateway, to no other caller. */
  router: Router;
  /** Reads a forwarded JSON body: the gateway has already held the client's body to its own limit (32 KB); this only bounds what it forwards. */
  json: RequestHandler;
  /** The account the call acts for. */
  account: (res: Response) => string;
}

export function gatewayInternalRouter(tokens: InternalCallersOptions['tokens']): GatewayInternalRouter {
  const router = express.Router();
  router.use('/internal', internalCallers({ tokens, routes: { gateway: '*' } }));
  return { router, json: express.json({ limit: '64kb', strict: false }), account: (res) => res.locals.accountId as string };
}
