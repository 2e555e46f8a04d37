import { createLogger } from '@glimpse/logging';
import { createBaseApp } from './base-app';
import { serveService } from './service-server';

describe('serveService', () => {
  it('serves the app, and stop() drains in order, closes the server, then closes the rest in order', async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const base = createBaseApp({ logger, checks: {} });
    const order: string[] = [];
    const step = (name: string) => async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push(name);
    };
    const service = await serveService({
      name: 'test',
      base,
      port: 0,
      host: '127.0.0.1',
      logger,
      drain: [step('timer'), step('consumer'), async () => order.push(`server up: ${(await fetch(`${service.url}/healthz`)).status}`)],
      close: [
        async () =>
          order.push(
            `server down: ${await fetch(`${service.url}/healthz`).then(
              () => 'no',
              () => 'yes',
            )}`,
          ),
        step('producer'),
        step('db'),
      ],
    });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    await service.stop();
    expect(order).toEqual(['timer', 'consumer', 'server up: 200', 'server down: yes', 'producer', 'db']);
  });
});
