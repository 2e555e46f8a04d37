import { createHash, randomUUID } from 'node:crypto';
import express from 'express';
import { errorHandler } from '@glimpse/errors';
import { createLogger } from '@glimpse/logging';
import { INTERNAL_HEADERS, internalCallers } from './internal-caller';
import { createHttpServer, type HttpServer } from './http-server';

const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const GATEWAY = 'gateway-token-0123456789';
const WEBHOOKS = 'webhooks-token-0123456789';

let server: HttpServer;
let base: string;

beforeAll(async () => {
  const app = express();
  const router = express.Router();
  router.use(
    '/internal',
    internalCallers({
      tokens: { gateway: digest(GATEWAY), webhooks: digest(WEBHOOKS) },
      routes: { gateway: '*', webhooks: ['POST /internal/persons/details', 'GET /internal/things/:id'] },
    }),
  );
  router.all('/internal/{*rest}', (_req, res) => res.json({ caller: res.locals.caller, accountId: res.locals.accountId }));
  app.use(router);
  app.use(errorHandler(createLogger({ service: 'test', level: 'silent' })));
  server = createHttpServer({ app, port: 0, host: '127.0.0.1' });
  base = (await server.start()).url;
});

afterAll(() => server.stop());

async function call(method: string, path: string, token?: string) {
  const headers: Record<string, string> = { [INTERNAL_HEADERS.account]: randomUUID() };
  if (token !== undefined) headers[INTERNAL_HEADERS.token] = token;
  const res = await fetch(`${base}${path}`, { method, headers });
  return { status: res.status, body: (await res.json()) as { error?: string; caller?: string } };
}

describe('internalCallers', () => {
  it('when a caller sends its own token on a route of its own, then the request goes through naming the caller', async () => {
    expect(await call('POST', '/internal/persons/details', WEBHOOKS)).toMatchObject({ status: 200, body: { caller: 'webhooks' } });
    expect(await call('GET', '/internal/things/abc', WEBHOOKS)).toMatchObject({ status: 200, body: { caller: 'webhooks' } });
    expect(await call('DELETE', '/internal/anything/at/all', GATEWAY)).toMatchObject({ status: 200, body: { caller: 'gateway' } });
  });

  it('when a known caller calls a route that is not its own, then it is refused with 403', async () => {
    expect(await call('GET', '/internal/usage', WEBHOOKS)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await call('GET', '/internal/persons/details', WEBHOOKS)).toMatchObject({ status: 403 }); // its route, another method
    expect(await call('GET', '/internal/things/abc/more', WEBHOOKS)).toMatchObject({ status: 403 }); // :id is one segment
    expect(await call('GET', '/internal/things/', WEBHOOKS)).toMatchObject({ status: 403 });
  });

  it('when the token is missing, unknown, or a near miss, then it is refused with 401', async () => {
    expect(await call('GET', '/internal/usage')).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(await call('GET', '/internal/usage', 'not-a-token-of-anyone')).toMatchObject({ status: 401 });
    expect(await call('GET', '/internal/usage', `${GATEWAY}x`)).toMatchObject({ status: 401 });
    expect(await call('GET', '/internal/usage', digest(GATEWAY))).toMatchObject({ status: 401 }); // the digest is not the token
  });

  it('when the route table names a malformed route, then building the guard fails', () => {
    expect(() => internalCallers({ tokens: {}, routes: { webhooks: ['/internal/x'] } })).toThrow(/METHOD/);
    expect(() => internalCallers({ tokens: { gateway: 'abcd' }, routes: {} })).toThrow(/SHA-256/);
  });
});
