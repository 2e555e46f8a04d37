// The operator's import routes with the real forwarder, against a stand-in for the owning service
// (a plain HTTP server): the file arrives as a stream with the internal token and the account, the
// service's answer comes back as it was, and the size cap, the one-at-a-time rule and an outage answer
// as documented.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { errorHandler } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { createImportForwarder, NO_ACCOUNT, type ImportForwarder } from '../data/import-forwarder';
import { operatorImportRoutes } from './operator-import-routes';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const ACCOUNT = '0b7c7a52-6d3e-4c43-9d4e-3a1f2f0c9e11';

interface Received {
  path: string;
  token: string | undefined;
  account: string | undefined;
  body: string;
}

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

describe('the operator import routes', () => {
  const received: Received[] = [];
  let answer: { status: number; body: string; delayMs?: number } = { status: 200, body: '{"read":2,"imported":2,"skipped":0,"errors":[]}' };
  const service = http.createServer(async (req, res) => {
    let body = '';
    try {
      for await (const chunk of req) body += chunk;
    } catch {
      return; // the upload was cut off: no answer to give
    }
    received.push({ path: req.url!, token: req.headers['x-glimpse-internal-token'] as string, account: req.headers['x-glimpse-account-id'] as string, body });
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  let gateway: Server;
  let base: string;
  let forwarder: ImportForwarder;

  beforeAll(async () => {
    const port = await listen(service);
    const endpoint = { baseUrl: `http://127.0.0.1:${port}`, internalToken: 'internal-token', timeoutMs: 5000 };
    forwarder = createImportForwarder({ enrichment: endpoint, visitors: endpoint });
    const app = express();
    app.use(operatorImportRoutes({ imports: forwarder, logger: quiet, maxBytes: 1024 }));
    app.use(errorHandler(quiet));
    base = `http://127.0.0.1:${await listen((gateway = http.createServer(app)))}`;
  });

  afterAll(async () => {
    await forwarder.close();
    await new Promise((r) => gateway.close(r));
    await new Promise((r) => service.close(r));
  });

  beforeEach(() => {
    received.length = 0;
    answer = { status: 200, body: '{"read":2,"imported":2,"skipped":0,"errors":[]}' };
  });

  const post = (path: string, body: string) => fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });

  it("when a persons file is posted, then the service gets it whole with the gateway's token and no account, and its report comes back", async () => {
    const res = await post('/operator/imports/persons?region=GB&other=dropped', '{"a":1}\n{"b":2}\n');

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ read: 2, imported: 2, skipped: 0, errors: [] });
    expect(received).toEqual([{ path: '/internal/imports/persons?region=GB', token: 'internal-token', account: NO_ACCOUNT, body: '{"a":1}\n{"b":2}\n' }]);
  });

  it("when visitors are posted for an account, then the service is told the account; an IP dataset's options go with it", async () => {
    await post(`/operator/accounts/${ACCOUNT.toUpperCase()}/imports/visitors`, 'x\n');
    await post('/operator/imports/ip-ranges?dataset=corp&format=csv&precedence=5&columns=start,end', '1.0.0.0,1.0.0.255\n');

    expect(received.map((r) => [r.path, r.account])).toEqual([
      ['/internal/imports/visitors', ACCOUNT],
      ['/internal/imports/ip-ranges?dataset=corp&format=csv&precedence=5&columns=start%2Cend', NO_ACCOUNT],
    ]);
  });

  it('when companies or a City database are posted, then they go to their services with their own options only', async () => {
    await post('/operator/imports/companies?region=GB', '{"domain":"acme.example"}\n');
    await post('/operator/imports/locations?dataset=city-eu&format=csv', 'mmdb bytes');
    await post('/operator/imports/locations', 'mmdb bytes');

    expect(received.map((r) => [r.path, r.token, r.account, r.body])).toEqual([
      ['/internal/imports/companies', 'internal-token', NO_ACCOUNT, '{"domain":"acme.example"}\n'],
      ['/internal/imports/locations?dataset=city-eu', 'internal-token', NO_ACCOUNT, 'mmdb bytes'],
      ['/internal/imports/locations', 'internal-token', NO_ACCOUNT, 'mmdb bytes'],
    ]);
  });

  it('when the service refuses the file, then its {error, message} and status come back as they were', async () => {
    answer = { status: 400, body: '{"error":"invalid_request","message":"format: mmdb, csv or ndjson"}' };

    const res = await post('/operator/imports/ip-ranges?dataset=x&format=txt', 'x\n');

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', message: 'format: mmdb, csv or ndjson' });
  });

  it('when a file is over the size cap, then it is refused with 413 and nothing reaches the service', async () => {
    const res = await post('/operator/imports/persons', 'x'.repeat(2000));

    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
    expect(received).toEqual([]);
  });

  it('when a streamed file (no Content-Length) passes the cap, then the upload to the service is cut off and the answer is 413', async () => {
    async function* chunks() {
      for (let i = 0; i < 20; i++) yield new TextEncoder().encode('x'.repeat(100) + '\n');
    }

    const res = await fetch(`${base}/operator/imports/persons`, {
      method: 'POST',
      body: chunks() as unknown as RequestInit['body'],
      duplex: 'half',
    } as RequestInit);

    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
    expect(received).toEqual([]);
  });

  it('when an import of a kind is running, then a second of that kind is 429 with Retry-After, and one of another kind goes through', async () => {
    answer = { ...answer, delayMs: 300 };
    const first = post('/operator/imports/persons', 'x\n');
    await new Promise((r) => setTimeout(r, 100));

    const second = await post('/operator/imports/persons', 'y\n');
    const other = await post('/operator/imports/ip-ranges?dataset=a&format=csv', 'z\n');
    const companies = await post('/operator/imports/companies', 'c\n');

    expect(second.status).toBe(429);
    expect(companies.status).toBe(200);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(other.status).toBe(200);
    expect((await first).status).toBe(200);
    expect((await post('/operator/imports/persons', 'w\n')).status).toBe(200);
  });

  it('when the service cannot be reached, then the answer is 503 with Retry-After', async () => {
    const away = createImportForwarder({
      enrichment: { baseUrl: 'http://127.0.0.1:9', internalToken: 't', timeoutMs: 1000 },
      visitors: { baseUrl: 'http://127.0.0.1:9', internalToken: 't', timeoutMs: 1000 },
    });
    const app = express();
    app.use(operatorImportRoutes({ imports: away, logger: quiet }));
    app.use(errorHandler(quiet));
    const server = http.createServer(app);
    const port = await listen(server);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/operator/imports/persons`, { method: 'POST', body: 'x\n' });

      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: 'service_unavailable', message: 'the enrichment service is unavailable; retry the import later' });
      for (const [kind, service] of [
        ['companies', 'enrichment'],
        ['locations', 'visitors'],
      ]) {
        const away503 = await fetch(`http://127.0.0.1:${port}/operator/imports/${kind}`, { method: 'POST', body: 'x\n' });
        expect([away503.status, away503.headers.get('retry-after')]).toEqual([503, '1']);
        expect(await away503.json()).toMatchObject({ message: `the ${service} service is unavailable; retry the import later` });
      }
    } finally {
      await away.close();
      await new Promise((r) => server.close(r));
    }
  });
});
