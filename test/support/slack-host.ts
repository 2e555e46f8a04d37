// A local HTTP server standing in for Slack's incoming-webhook host (hooks.slack.com is not
// reachable from the tests): each hook URL it hands out answers its own script of statuses (a 429
// with Retry-After, a 410 for a removed webhook, …), then 200 "ok" as Slack does, and every request
// is recorded with when it came and when it was answered.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A Slack answer: the status, its body (Slack's are a word) and any headers. */
export interface SlackAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface SlackRequest {
  path: string;
  body: string;
  receivedAt: number;
  /** When the answer was written (a 429's Retry-After counts from then, at the earliest). */
  answeredAt: number;
  status: number;
}

/** A local stand-in for hooks.slack.com: each path answers its script in order, then 200 "ok". */
export interface SlackHost {
  origin: string;
  requests: SlackRequest[];
  /** A new incoming-webhook URL answering these first. */
  hook(script?: SlackAnswer[]): string;
  close(): Promise<void>;
}

export async function startSlackHost(): Promise<SlackHost> {
  const scripts = new Map<string, SlackAnswer[]>();
  const requests: SlackRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = Date.now();
      const path = req.url ?? '';
      const answer = scripts.get(path)?.shift() ?? { status: 200, body: 'ok' };
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      const answeredAt = Date.now();
      res.end(answer.body ?? '');
      requests.push({ path, body: Buffer.concat(chunks).toString('utf8'), receivedAt, answeredAt, status: answer.status });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    hook(script = []) {
      const path = `/services/T${randomBytes(4).toString('hex')}/B${randomBytes(4).toString('hex')}/${randomBytes(12).toString('hex')}`;
      scripts.set(path, [...script]);
      return `${origin}${path}`;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
