// The operator's IP dataset and network-type routes with the real internal client, against a
// stand-in for the visitors service (a plain HTTP server): each call arrives at its internal route
// with the internal token and the nil account, the service's answer comes back as it was, bad input
// the gateway can see is refused before any call, and the service away is 503 with Retry-After.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { errorHandler } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { createInternalService, type InternalService } from '../data/internal-service';
import { NO_ACCOUNT } from '../data/import-forwarder';
import { operatorIpDataRoutes } from './operator-ip-data-routes';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;

interface Received {
  method: string;
  path: string;
  token: string | undefined;
  account: string | undefined;
  body: string;
}

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

/** A gateway of only these routes in front of `baseUrl`; answers its base URL and how to close it. */
async function gatewayFor(baseUrl: string): Promise<{ base: string; close(): Promise<void> }> {
  const visitors: InternalService = createInternalService({
    baseUrl,
    internalToken: 'internal-token',
    timeoutMs: 2000,
    unavailableMessage: 'the visitors service is unavailable; retry later',
  });
  const app = express();
  app.use(operatorIpDataRoutes({ visitors, logger: quiet }));
  app.use(errorHandler(quiet));
  const server = http.createServer(app);
  const port = await listen(server);
  return {
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      await visitors.close();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('the operator IP data routes', () => {
  const received: Received[] = [];
  let answer = { status: 200, body: '[]' };
  const service = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push({
      method: req.method!,
      path: req.url!,
      token: req.headers['x-glimpse-internal-token'] as string,
      account: req.headers['x-glimpse-account-id'] as string,
      body,
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  let gateway: Awaited<ReturnType<typeof gatewayFor>>;

  beforeAll(async () => {
    gateway = await gatewayFor(`http://127.0.0.1:${await listen(service)}`);
  });

  afterAll(async () => {
    await gateway.close();
    await new Promise((r) => service.close(r));
  });

  beforeEach(() => {
    received.length = 0;
    answer = { status: 200, body: '[]' };
  });

  const send = (method: string, path: string, body?: string, contentType = 'application/json') =>
    fetch(`${gateway.base}${path}`, { method, body, headers: body === undefined ? {} : { 'content-type': contentType } });

  it.each([
    ['GET', '/operator/ip-datasets', undefined, 'GET', '/internal/ip-datasets', ''],
    ['DELETE', '/operator/ip-datasets/asn%20list', undefined, 'DELETE', '/internal/ip-datasets/asn%20list', ''],
    ['GET', '/operator/network-types', undefined, 'GET', '/internal/network-types', ''],
    ['PUT', '/operator/network-types', '{"asn":"AS7922","type":"isp","extra":1}', 'PUT', '/internal/network-types', '{"asn":"AS7922","type":"isp"}'],
    ['DELETE', '/operator/network-types?org=Example%20Corp', undefined, 'DELETE', '/internal/network-types?org=Example+Corp', ''],
  ])(
    'when %s %s is called, then the service gets it on its internal route with the internal token and the nil account, and its answer comes back',
    async (method, path, body, toMethod, toPath, toBody) => {
      answer = { status: 200, body: '{"answered":true}' };
      const res = await send(method, path, body);
      expect([res.status, await res.json()]).toEqual([200, { answered: true }]);
      expect(received).toEqual([{ method: toMethod, path: toPath, token: 'internal-token', account: NO_ACCOUNT, body: toBody }]);
    },
  );

  it("when the service refuses (400, 404), then its {error, message} is the operator's answer", async () => {
    answer = { status: 404, body: '{"error":"not_found","message":"no IP dataset named nothing"}' };
    const res = await send('DELETE', '/operator/ip-datasets/nothing');
    expect([res.status, await res.json()]).toEqual([404, { error: 'not_found', message: 'no IP dataset named nothing' }]);
  });

  it.each([
    ['no network named', 'DELETE', '/operator/network-types', undefined, 'name one network'],
    ['two networks named', 'DELETE', '/operator/network-types?asn=1&org=x', undefined, 'name one network'],
    ['a network named twice', 'DELETE', '/operator/network-types?asn=1&asn=2', undefined, 'asn must be given once'],
    ['a body that is not an object', 'PUT', '/operator/network-types', '["isp"]', 'send a JSON object'],
    ['a body that is not JSON', 'PUT', '/operator/network-types', '{"asn": ', ''],
  ])('when %s, then it is 400 {error, message} and the service is not called', async (_what, method, path, body, message) => {
    const res = await send(method, path, body);
    const answered = (await res.json()) as { error: string; message: string };
    expect([res.status, answered.error]).toEqual([400, 'invalid_request']);
    expect(answered.message).toContain(message);
    expect(received).toEqual([]);
  });

  it('when the body is not declared JSON, then it is 415 and the service is not called', async () => {
    const res = await send('PUT', '/operator/network-types', 'asn=1&type=isp', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect(received).toEqual([]);
  });

  it('when the visitors service cannot be reached, then it is 503 with Retry-After', async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await new Promise((r) => closed.close(r));
    const away = await gatewayFor(`http://127.0.0.1:${port}`);
    try {
      const res = await fetch(`${away.base}/operator/network-types`);
      expect([res.status, res.headers.get('retry-after'), ((await res.json()) as { error: string }).error]).toEqual([503, '1', 'service_unavailable']);
    } finally {
      await away.close();
    }
  });

  it("when the service answers 503 (its database away), then the operator's answer keeps Retry-After", async () => {
    answer = { status: 503, body: '{"error":"service_unavailable","message":"a service this request needs is unavailable; retry later"}' };
    const res = await send('GET', '/operator/ip-datasets');
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, expect.stringMatching(/^\d+$/)]);
  });
});
