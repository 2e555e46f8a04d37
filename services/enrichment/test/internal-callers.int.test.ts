// Per-service trust, with the real services: each caller has its own internal token; a service
// knows which caller it is and allows it only its own routes. The webhooks service's token opens
// the enrichment service's person details (the one route it calls) and nothing else: 403 on the
// enrichment service's other routes, 401 at a service that does not accept the webhooks service at
// all; no or an unknown token is 401 everywhere. Started with zero configuration (the derived
// development tokens), like npm start.
import { randomUUID } from 'node:crypto';
import { devInternalToken } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { request, startTestEnrichmentService, startTestPlaybookService } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';

type Started = { url: string; stop(): Promise<void> };
let enrichment: Started;
let playbook: Started;
let visitors: Started;

beforeAll(async () => {
  [enrichment, playbook, visitors] = await Promise.all([startTestEnrichmentService(), startTestPlaybookService(), startTestVisitorsService()]);
});

afterAll(async () => {
  await Promise.all([enrichment?.stop(), playbook?.stop(), visitors?.stop()]);
});

function call(url: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { [INTERNAL_HEADERS.account]: randomUUID(), 'content-type': 'application/json' };
  if (init.token !== undefined) headers[INTERNAL_HEADERS.token] = init.token;
  return request(url, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

const GATEWAY = devInternalToken('gateway');
const WEBHOOKS = devInternalToken('webhooks');

it('when the webhooks service asks the enrichment service for person details, then it is let through (its own route)', async () => {
  const res = await call(`${enrichment.url}/internal/persons/details`, {
    method: 'POST',
    token: WEBHOOKS,
    body: { email: `nobody-${randomUUID()}@example.com`, billable: true },
  });
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ error: 'not_found' });
});

it.each([
  ['GET', '/internal/usage', undefined],
  ['GET', '/internal/usage/totals', undefined],
  ['PUT', '/internal/credits', { credits: 1 }],
  ['POST', '/internal/enrichment', { email: 'ada@example.com' }],
  ['POST', '/internal/enrichment/bulk', { items: [{ email: 'ada@example.com' }] }],
  ['POST', '/internal/persons/erase', { email: 'ada@example.com', replacement: 'x' }],
  ['GET', '/internal/visitors/0123456789abcdef01234567/details', undefined],
])("when the webhooks service's token calls %s %s on the enrichment service (the gateway's route), then it is 403", async (method, path, body) => {
  const res = await call(`${enrichment.url}${path}`, { method, token: WEBHOOKS, body });
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 403, error: 'forbidden' });
});

it("when the gateway's token calls the same route, then it is answered", async () => {
  const res = await call(`${enrichment.url}/internal/usage`, { token: GATEWAY });
  expect(res.status).toBe(200);
});

it.each([
  ['playbook', () => `${playbook.url}/internal/playbooks`],
  ['visitors', () => `${visitors.url}/internal/visitors`],
])("when the webhooks service's token reaches the %s service (which accepts only the gateway), then it is 401", async (_name, url) => {
  const res = await call(url(), { token: WEBHOOKS });
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 401, error: 'unauthorized' });
  expect((await call(url(), { token: GATEWAY })).status).toBe(200);
});

it.each([
  ['no token', undefined],
  ['an unknown token', `made-up-${randomUUID()}`],
  ["the old shared token's length, one character off", `${GATEWAY.slice(0, -1)}X`],
])('when a request carries %s, then every service answers 401', async (_what, token) => {
  for (const url of [
    `${enrichment.url}/internal/usage`,
    `${enrichment.url}/internal/persons/details`,
    `${playbook.url}/internal/playbooks`,
    `${visitors.url}/internal/visitors`,
  ]) {
    const res = await call(url, { token });
    expect({ url, status: res.status, error: res.body?.error }).toEqual({ url, status: 401, error: 'unauthorized' });
  }
});
