// The requests the fuzzer sends: every public path of the gateway, each request built from a
// seeded random generator as raw bytes (methods, targets, headers, encodings and bodies a normal
// HTTP client would refuse to send). Case i of seed s is always the same request.
'use strict';
const zlib = require('node:zlib');

/** mulberry32: a small, fast, seeded PRNG (uniform in [0, 1)). */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function tools(rng) {
  const int = (n) => Math.floor(rng() * n);
  const pick = (list) => list[int(list.length)];
  const chance = (p) => rng() < p;
  const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
  const b64url = (n) => Array.from({ length: n }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[int(64)]).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  return { int, pick, chance, hex, b64url, uuid };
}

const PATHS = [
  { method: 'POST', path: '/events', body: 'event' },
  { method: 'GET', path: '/visitors/{visitor}/details' },
  { method: 'POST', path: '/visitors/enrichment', body: 'enrichment' },
  { method: 'GET', path: '/account/event-tokens' },
  { method: 'POST', path: '/account/event-tokens' },
  { method: 'DELETE', path: '/account/event-tokens/{uuid}' },
  { method: 'GET', path: '/account/api-keys' },
  { method: 'POST', path: '/account/api-keys', body: 'apiKey' },
  { method: 'DELETE', path: '/account/api-keys/{uuid}' },
  { method: 'GET', path: '/account/playbooks' },
  { method: 'POST', path: '/account/playbooks', body: 'playbook' },
  { method: 'GET', path: '/account/playbooks/{uuid}' },
  { method: 'PATCH', path: '/account/playbooks/{uuid}', body: 'playbook' },
  { method: 'DELETE', path: '/account/playbooks/{uuid}' },
  { method: 'GET', path: '/account/playbooks/{uuid}/enrollments', query: ['status=active', 'limit=5', 'cursor=abc'] },
  { method: 'GET', path: '/account/events/catalog' },
  { method: 'GET', path: '/account/events/recent', query: ['limit=2', 'cursor=MjAyNi0'] },
  { method: 'GET', path: '/account/usage', query: ['from=2026-01-01', 'to=2026-01-31'] },
  { method: 'GET', path: '/console/' },
  { method: 'GET', path: '/console/console.js' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz' },
  { method: 'GET', path: '/metrics' },
];

const METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'SEARCH',
  'QUERY',
  'LINK',
  'PURGE',
  'get',
  'FOO',
  'G@T',
  'CONNECT',
];

/** Path segments that have broken servers: bad escapes, overlong UTF-8, NUL, traversal, huge. */
const SEGMENTS = [
  '%ZZ',
  '%E2%82%AC%E2%82',
  '%C0%AF',
  '%00',
  '%2F',
  '..%2F..%2Fetc%2Fpasswd',
  '%',
  '%%',
  '%u0041',
  '%FF%FE',
  '\u00e9',
  '%F0%9F%98%80',
  'a'.repeat(3000),
  '',
  '.',
  '..',
  ';x=1',
  '%20',
  'null',
  '__proto__',
  '0'.repeat(24),
  'G'.repeat(24),
  '%30'.repeat(24),
];
const QUERIES = [
  'a=%ZZ',
  'limit=%ZZ',
  'limit=1&limit=2',
  'limit[]=1',
  '__proto__[x]=1',
  'cursor=%00',
  'status=%E2%82',
  'from=2026-02-30',
  'limit=99999999999999999999',
  'x=' + 'y'.repeat(4000),
  '&&&',
  '=',
  'limit',
  'constructor[prototype][x]=1',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16le',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'application/json; charset=""',
  'application/JSON',
  'application/vnd.api+json',
  'text/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  ';;;',
  'application/json; charset=utf-8; charset=utf-16',
  '*/*',
  'application/json\u00ff',
];

function jsonValue(t, depth = 0) {
  switch (t.int(depth > 3 ? 4 : 7)) {
    case 0:
      return t.pick([0, -0, 1, -1, 1.5, 2 ** 53 + 1, 1e308, -1e-320]);
    case 1:
      return t.pick(['', 'x', 'a@b.co', '\u0000', '\ud800', '😀', 'é', ' '.repeat(5), 'A'.repeat(t.int(300))]);
    case 2:
      return t.chance(0.5);
    case 3:
      return null;
    case 4:
      return Array.from({ length: t.int(4) }, () => jsonValue(t, depth + 1));
    default: {
      const o = {};
      for (let i = t.int(4); i > 0; i--)
        o[t.pick(['event', 'email', 'properties', 'phone', 'name', 'triggers', 'exits', 'scopes', '__proto__', 'constructor', 'x', ''])] = jsonValue(
          t,
          depth + 1,
        );
      return o;
    }
  }
}

function validBody(t, kind) {
  switch (kind) {
    case 'event':
      return {
        event: t.pick(['signed_up', 'demo_booked', 'fuzz.event:1', 'x'.repeat(64)]),
        email: `fuzz.${t.hex(6)}@example.com`,
        ...(t.chance(0.5) ? { properties: { plan: 'pro', seats: t.int(9), trial: t.chance(0.5) } } : {}),
      };
    case 'enrichment':
      return t.chance(0.5) ? { email: `fuzz.${t.hex(6)}@example.com` } : { phone: t.pick(['+14155550134', '415.555.0134', '12', '+999999999999999999']) };
    case 'apiKey':
      return { scopes: t.pick([['visitors:read'], ['enrichment:read', 'visitors:read'], ['account:manage'], ['nope'], []]) };
    default:
      return { name: `fuzz ${t.hex(4)}`, triggers: t.pick([[], ['signed_up'], ['x y']]), exits: t.pick([[], ['purchase']]) };
  }
}

/** A body as bytes: valid, mutated, or hostile (deep, NUL, 1e309, duplicate keys, bad UTF-8…). */
function bodyBytes(t, kind) {
  const valid = JSON.stringify(validBody(t, kind));
  const n = t.pick([20, 1000, 10_000, 16_000]);
  const variants = [
    () => valid,
    () => valid,
    () => JSON.stringify(jsonValue(t)),
    () => '['.repeat(n) + ']'.repeat(n),
    () => '{"a":'.repeat(n) + '1' + '}'.repeat(n),
    () => valid.replace(/"([^"]*)"/, '"$1\\u0000"'),
    () => valid.replace(/@/, '\\u0000@'),
    () => valid.replace('{', '{"x":"\\ud800",'),
    () => Buffer.concat([Buffer.from(valid.slice(0, 10)), Buffer.from([0x00, 0xc3, 0x28, 0xc0, 0xaf, 0xff]), Buffer.from(valid.slice(10))]),
    () => valid.replace('{', '{"n":1e309,'),
    () => t.pick(['1e309', '-1e309', 'NaN', 'Infinity', '1e-400', '123456789012345678901234567890']),
    () => valid.replace('{', '{"event":"a","event":"b","email":"x","email":"a@b.co",'),
    () => valid.replace('{', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},'),
    () => '\ufeff' + valid,
    () => t.pick(['', ' ', 'null', 'true', '[]', '"str"', '0', '{}', '{', '}', '{"a":}', "{'a':1}", '{"a":1,}']),
    () => valid.slice(0, t.int(valid.length)),
    () => JSON.stringify({ ...validBody(t, kind), properties: { pad: 'x'.repeat(33 * 1024) } }),
    () => JSON.stringify({ ...validBody(t, kind), properties: Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i])) }),
    () => JSON.stringify({ event: 'é😀'.repeat(20), email: `${'ü'.repeat(10)}@exämple.com`, properties: { [`${'k'.repeat(200)}`]: 'v' } }),
    () =>
      JSON.stringify({
        event: t.pick([1, null, [], {}, true]),
        email: t.pick([1, null, [], {}, 'not-an-email', `${'a'.repeat(300)}@b.co`]),
        properties: t.pick([[], 'x', { a: { b: 1 } }, { a: null }, { a: [1] }]),
      }),
  ];
  return Buffer.from(t.pick(variants)());
}

function target(t, spec, ids) {
  let path = spec.path
    .replace('{visitor}', () => (t.chance(0.4) ? (ids.visitor ?? t.hex(24)) : t.pick(SEGMENTS)))
    .replace('{uuid}', () => (t.chance(0.4) ? t.uuid() : t.pick(SEGMENTS)));
  if (t.chance(0.1)) path = path.replace(/\/[^/]+$/, `/${t.pick(SEGMENTS)}`);
  if (t.chance(0.05))
    path = t.pick([
      '//events',
      '/events/',
      '/EVENTS',
      '/visitors//details',
      '/account',
      '/account/',
      '/events;x',
      '*',
      'http://127.0.0.1/events',
      '/events#frag',
      '',
      '/\u0000',
    ]);
  const query = spec.query && t.chance(0.5) ? [t.pick(spec.query)] : [];
  if (t.chance(0.2)) query.push(t.pick(QUERIES));
  return query.length ? `${path}?${query.join('&')}` : path;
}

function authHeader(t, creds, spec) {
  const wantsKey = !spec.path.startsWith('/events');
  const valid = wantsKey ? creds.apiKey : creds.eventToken;
  const roll = t.int(20);
  if (roll < 13 && valid) return `Bearer ${valid}`;
  return t.pick([
    undefined,
    'Bearer',
    'Bearer ',
    `Basic ${t.b64url(20)}`,
    `Bearer gle_${t.b64url(43)}`,
    `Bearer glk_${t.b64url(43)}`,
    `Bearer ${wantsKey ? creds.eventToken : creds.apiKey}`,
    `Bearer ${t.b64url(5000)}`,
    `bearer\t${valid}`,
    `Bearer ${valid} extra`,
    `Bearer ${valid}\u00ff`,
  ]);
}

function encode(t, body, headers) {
  const roll = t.int(24);
  if (roll === 0) return [zlib.gzipSync(body), [...headers, ['Content-Encoding', 'gzip']]];
  if (roll === 1) return [Buffer.from(body.subarray(0, 50)), [...headers, ['Content-Encoding', t.pick(['gzip', 'deflate', 'br'])]]];
  if (roll === 2) return [zlib.deflateSync(body), [...headers, ['Content-Encoding', 'deflate']]];
  if (roll === 3) return [zlib.brotliCompressSync(body), [...headers, ['Content-Encoding', 'br']]];
  if (roll === 4) return [body, [...headers, ['Content-Encoding', t.pick(['identity', 'x-bogus', 'gzip, gzip', ''])]]];
  if (roll === 5) return [Buffer.from(body.toString('utf8'), 'utf16le'), headers];
  return [body, headers];
}

/** Framing: Content-Length right, short, doubled or odd; chunked right or broken; both at once. */
function frame(t, body, headers) {
  const roll = t.int(30);
  if (roll === 0)
    return {
      headers: [...headers, ['Transfer-Encoding', 'chunked']],
      body: Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]),
    };
  if (roll === 1)
    return { headers: [...headers, ['Transfer-Encoding', 'chunked']], body: Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]) };
  if (roll === 2) return { headers: [...headers, ['Transfer-Encoding', 'chunked'], ['Content-Length', String(body.length)]], body };
  if (roll === 3) return { headers: [...headers, ['Content-Length', String(Math.max(0, body.length - 7))]], body };
  if (roll === 4) return { headers: [...headers, ['Content-Length', t.pick(['-1', 'abc', '+5', '1e3', `${body.length}, ${body.length + 1}`, ''])]], body };
  if (roll === 5) return { headers: [...headers, ['Content-Length', String(body.length)], ['Content-Length', String(body.length + 1)]], body };
  if (roll === 6) return { headers: [...headers, ['Transfer-Encoding', t.pick(['gzip', 'chunked, identity', 'xchunked'])]], body };
  return { headers: [...headers, ['Content-Length', String(body.length)]], body };
}

function extraHeaders(t) {
  const out = [];
  if (t.chance(0.3)) out.push(['Idempotency-Key', t.pick(['k-1', `k-${t.hex(8)}`, 'has spaces', 'x'.repeat(200), 'é', ''])]);
  if (t.chance(0.1)) out.push(['X-Request-Id', t.pick(['abc', 'x'.repeat(500), '\u00ff', ''])]);
  if (t.chance(0.1)) out.push(['X-Forwarded-For', t.pick(['not-an-ip', '203.0.113.7, 198.51.100.2', '::1', '', '999.1.1.1', 'x'.repeat(300)])]);
  if (t.chance(0.05)) out.push(['Expect', t.pick(['100-continue', 'bogus'])]);
  if (t.chance(0.05))
    out.push(['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='], ['Sec-WebSocket-Version', '13']);
  if (t.chance(0.05))
    out.push(['Range', t.pick(['bytes=0-10', 'bytes=99999-', 'bytes=x', 'bytes=0-1,2-3,4-5'])], ['If-None-Match', t.pick(['*', '"x"', 'garbage'])]);
  if (t.chance(0.03)) out.push(['X-Big', 'h'.repeat(t.pick([8000, 20_000]))]);
  if (t.chance(0.03)) out.push(['Bad Header', 'x'], ['X-Fold', 'a\r\n folded']);
  if (t.chance(0.03)) for (let i = 0; i < 150; i++) out.push([`X-H${i}`, String(i)]);
  return out;
}

/** Bytes that are not quite HTTP/1.1 at all. */
function protocolGarbage(t, host) {
  return Buffer.from(
    t.pick([
      'GET /healthz\r\n\r\n',
      'GET /healthz HTTP/1.0\r\n\r\n',
      'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      `GET /healthz HTTP/1.1\nHost: ${host}\n\n`,
      `GET /events HTTP/1.1\r\n\r\n`,
      `GET /\u0000 HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      `\r\n\r\nGET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      `POST /events HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello`,
    ]),
    'latin1',
  );
}

/**
 * Case `index` of `seed`: { label, bytes }. `creds` are a valid event token and API key (so
 * bodies get past authentication), `ids.visitor` a visitor id that exists, if any.
 */
function buildCase(seed, index, { host, creds = {}, ids = {} }) {
  const t = tools(seededRandom((seed * 1_000_003 + index) >>> 0));
  if (t.chance(0.02)) return { label: 'protocol garbage', bytes: protocolGarbage(t, host) };
  const spec = t.pick(PATHS);
  const method = t.chance(0.85) ? spec.method : t.pick(METHODS);
  const path = target(t, spec, ids);
  let headers = [
    ['Host', host],
    ['Connection', 'close'],
  ];
  const auth = authHeader(t, creds, spec);
  if (auth !== undefined) headers.push(['Authorization', auth]);
  headers.push(...extraHeaders(t));
  let body = Buffer.alloc(0);
  const sendsBody = spec.body || t.chance(0.1);
  if (sendsBody) {
    headers.push(['Content-Type', t.chance(0.75) ? 'application/json' : t.pick(CONTENT_TYPES)]);
    [body, headers] = encode(t, bodyBytes(t, spec.body ?? 'event'), headers);
  }
  const framed = sendsBody ? frame(t, body, headers) : { headers, body };
  const head = `${method} ${path} HTTP/1.1\r\n${framed.headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
  return { label: `${method} ${spec.path}`, bytes: Buffer.concat([Buffer.from(head, 'latin1'), framed.body]) };
}

module.exports = { buildCase, seededRandom, PATHS };
