// The webhooks service in the test process, and a real local HTTP receiver whose answers a test
// scripts (succeed, fail with 500, or never answer), recording every request it gets.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TOPICS } from '@glimpse/messaging';
import { loadConfig as webhooksConfig, startWebhooksService, type RunningWebhooksService } from '@glimpse/webhooks';
import { createLogger } from '@glimpse/logging';
import { freshGroupAtEnd } from './kafka-helpers';
import { serviceEnv } from './stack';

/** Short back-off and time-outs, the SSRF guard on with loopback allowed (the receiver is local). */
export async function startTestWebhooksService(overrides: Record<string, string> = {}): Promise<RunningWebhooksService> {
  const groupId = overrides.WEBHOOKS_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.playbookEffects, 'glimpse-webhooks-test'));
  const identifiedGroupId = overrides.WEBHOOKS_IDENTIFIED_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.visitorsIdentified, 'glimpse-webhooks-identified-test'));
  const companiesGroupId = overrides.WEBHOOKS_COMPANIES_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.visitorsCompanies, 'glimpse-webhooks-companies-test'));
  const segmentsGroupId = overrides.WEBHOOKS_SEGMENTS_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.visitorsSegments, 'glimpse-webhooks-segments-test'));
  const env = serviceEnv('webhooks', {
    WEBHOOKS_PORT: '0',
    WEBHOOKS_BLOCK_PRIVATE_TARGETS: 'true',
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    WEBHOOKS_POLL_INTERVAL_MS: '50',
    WEBHOOKS_RETRY_BASE_MS: '100',
    WEBHOOKS_RETRY_MAX_DELAY_MS: '400',
    WEBHOOKS_TIMEOUT_MS: '1000',
    WEBHOOKS_ACCOUNTS_GROUP_ID: `glimpse-webhooks-accounts-test-${randomUUID()}`,
    ...overrides,
    WEBHOOKS_GROUP_ID: groupId,
    WEBHOOKS_IDENTIFIED_GROUP_ID: identifiedGroupId,
    WEBHOOKS_COMPANIES_GROUP_ID: companiesGroupId,
    WEBHOOKS_SEGMENTS_GROUP_ID: segmentsGroupId,
  });
  return startWebhooksService(webhooksConfig(env), createLogger({ service: 'webhooks', level: 'silent' }));
}

export type Behaviour = 'ok' | 'fail' | 'hang';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: Behaviour;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Answers the next requests in this order, then `then` for every later one. */
  script(steps: Behaviour[], then?: Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let steps: Behaviour[] = [];
  let fallback: Behaviour = 'ok';
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = steps.shift() ?? fallback;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
      requests.push({ path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      if (answered === 'ok') res.writeHead(204).end();
      else if (answered === 'fail') res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver failing on purpose');
      // 'hang': no answer; the socket is destroyed when the receiver closes.
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    requests,
    script(next, then = 'ok') {
      steps = [...next];
      fallback = then;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
