import type { Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express, { type RequestHandler } from 'express';
import { AppError, errorHandler } from '@glimpse/errors';
import { MAX_JSON_DEPTH, jsonBodyParser, jsonProblem } from './json-body';
import { requireJson } from './require-json';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('jsonProblem', () => {
  it('when a body is an ordinary event or playbook, then there is no problem', () => {
    expect(jsonProblem({ event: 'signed_up', email: 'a@b.co', properties: { plan: 'pro', n: 1, ok: true } })).toBeNull();
    expect(jsonProblem({ name: 'Win-back', triggers: ['signed_up'], exits: [] })).toBeNull();
    expect(jsonProblem('text with an emoji 😀')).toBeNull();
    expect(jsonProblem(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('when a body nests deeper than the limit (even 100 000 levels), then it is refused without exhausting the stack', () => {
    expect(jsonProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/nested deeper/);
    expect(jsonProblem(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toMatch(/nested deeper/);
  });

  it.each([['__proto__'], ['constructor']])('when a body names %s, at any level, then it is refused', (name) => {
    expect(jsonProblem(JSON.parse(`{"event":"x","properties":{"${name}":null}}`))).toBe(`the name "${name}" is not accepted`);
    expect(jsonProblem(JSON.parse(`{"${name}":{"prototype":{"x":1}}}`))).toBe(`the name "${name}" is not accepted`);
  });

  it.each([
    ['a NUL in a value', { email: 'a\u0000@b.co' }],
    ['a NUL in a name', { properties: { 'pl\u0000an': 'x' } }],
    ['a lone high surrogate', { event: 'x', email: '\ud800@b.co' }],
    ['a lone low surrogate', ['\udc00']],
  ])('when a body holds %s, then it is refused', (_what, body) => {
    expect(jsonProblem(body)).toMatch(/NUL characters or unpaired surrogates/);
  });
});

describe('jsonBodyParser against body-parser', () => {
  // The same raw requests to the reader and to body-parser's chain (415, express.json, the checks),
  // each behind the real error handler: every answer must be the same, on both of its paths.
  const LIMIT = 64;
  const quiet = { error: () => undefined, warn: () => undefined };
  const echo: RequestHandler = (req, res) => {
    res.json({ body: req.body as unknown });
  };
  const servers: Server[] = [];
  let ours = 0;
  let theirs = 0;

  function serve(...handlers: RequestHandler[]): Promise<number> {
    const app = express();
    app.post('/', ...handlers, echo);
    app.use(errorHandler(quiet));
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
      servers.push(server);
    });
  }

  beforeAll(async () => {
    const checkJson: RequestHandler = (req, _res, next) => {
      const problem = jsonProblem(req.body);
      if (problem) throw new AppError('invalid_request', `request body refused: ${problem}`);
      next();
    };
    ours = await serve(jsonBodyParser(LIMIT));
    theirs = await serve(requireJson, express.json({ limit: LIMIT, strict: false }), checkJson);
  });

  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  /** Status and body of one raw request (its own connection). */
  function exchange(port: number, head: string, body: Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(Buffer.concat([Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${head}\r\n`), body])),
      );
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('end', () => {
        const [status] = text.split('\r\n');
        resolve(`${status} ${text.slice(text.indexOf('\r\n\r\n') + 4)}`);
      });
      socket.on('error', reject);
    });
  }

  const json = (body: string | Buffer, extra = '', type = 'application/json') => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    return [`Content-Type: ${type}\r\nContent-Length: ${bytes.length}\r\n${extra}`, bytes] as const;
  };
  const chunked = (body: string) =>
    [`Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n`, Buffer.from(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`)] as const;

  it.each([
    ['a plain event', json('{"event":"e","email":"a@b.co"}')],
    ['a charset of utf-8', json('{"a":1}', '', 'application/json; charset=utf-8')],
    ['a quoted UTF-8 charset', json('{"a":1}', '', 'Application/JSON;charset="UTF-8"')],
    ['a latin1 charset', json(Buffer.from('{"a":"\u00e9"}', 'latin1'), '', 'application/json; charset=iso-8859-1')],
    ['an unknown charset', json('{"a":1}', '', 'application/json; charset=klingon')],
    ['a byte order mark', json(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))],
    ['bytes that are not UTF-8', json(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]))],
    ['an empty body', json('')],
    ['whitespace only', json('  \n')],
    ['a JSON string', json('"text"')],
    ['JSON that does not parse', json('{"a":')],
    ['a body at the limit', json(`{"a":"${'x'.repeat(LIMIT - 8)}"}`)],
    ['a body over the limit', json(`{"a":"${'x'.repeat(LIMIT)}"}`)],
    ['a NUL in a string', json('{"a":"\\u0000"}')],
    ['a __proto__ name', json('{"__proto__":{"x":1}}')],
    ['a deep body', json(`${'['.repeat(20)}${']'.repeat(20)}`)],
    ['text/plain', json('{"a":1}', '', 'text/plain')],
    ['no Content-Type', [`Content-Length: 7\r\n`, Buffer.from('{"a":1}')] as const],
    ['a gzip Content-Encoding', json(gzipSync('{"a":1}'), 'Content-Encoding: gzip\r\n')],
    ['an identity Content-Encoding', json('{"a":1}', 'Content-Encoding: Identity\r\n')],
    ['an unknown Content-Encoding', json('{"a":1}', 'Content-Encoding: snappy\r\n')],
    ['a chunked body', chunked('{"a":1}')],
    ['a chunked body over the limit', chunked(`{"a":"${'x'.repeat(LIMIT)}"}`)],
  ])("when the request has %s, then the answer is body-parser's", async (_what, [head, body]) => {
    const [mine, expected] = await Promise.all([exchange(ours, head, body), exchange(theirs, head, body)]);
    expect(mine).toBe(expected);
  });
});
