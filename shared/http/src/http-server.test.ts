import express from 'express';
import { createHttpServer } from './http-server';

describe('createHttpServer', () => {
  it("when a request arrives, then Node built its request and response with the app's prototypes (express has none to change), and express works as ever", async () => {
    const app = express();
    const seen: boolean[] = [];
    const setPrototypeOf = jest.spyOn(Object, 'setPrototypeOf');
    app.post('/echo', express.json(), (req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
      res.set('X-Seen', req.get('content-type')).json({ body: req.body as unknown, ip: req.ip });
    });
    const server = createHttpServer({ app, port: 0, host: '127.0.0.1' });
    const { url } = await server.start();
    try {
      setPrototypeOf.mockClear();
      const res = await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect([res.status, res.headers.get('x-seen'), await res.json()]).toEqual([200, 'application/json', { body: { a: 1 }, ip: '127.0.0.1' }]);
      expect(seen).toEqual([true, true]);
      // Express still calls it, with the prototype each object already has.
      expect(setPrototypeOf.mock.calls.length).toBeGreaterThanOrEqual(2);
      for (const [obj, proto] of setPrototypeOf.mock.calls) expect(Object.getPrototypeOf(obj)).toBe(proto);
    } finally {
      setPrototypeOf.mockRestore();
      await server.stop();
    }
  });
});
