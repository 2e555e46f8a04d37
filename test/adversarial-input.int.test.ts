// No input stalls a service: every string field of every public request (each body
// field, query parameter, path parameter and header parameter of every operation in the API
// document built from @glimpse/api's zod schemas) gets 64 KB of adversarial text (runs of
// separators ending in a character that makes a match fail, nested-quantifier bait, '%' escapes,
// mixed whitespace) against the real stack: the gateway with the enrichment, playbook, webhooks and
// visitors services in this process, real Postgres, Redis and Kafka. Every answer must be a 2xx or
// a 4xx that the document lists (never a 5xx), and come within the bounds below.
//
// 64 KB is past most limits, and the limit's 413 (or Node's 431 for a request line or headers of
// that size) is the right answer to it: a limit does not read the content, so once a field's 64 KB
// is refused for its size, every pattern is sent at the largest size that gets through, which is
// what reaches the validators. Arrays of objects (bulk items, batched and collected events) are
// filled to their most items (up to 100), so that work done per item is done a hundred times; their
// fields are also sent at 2,000 characters (under the 2,048-character caps of URLs and paths) when
// the size that gets through is well above that.
//
// The bounds are behavioural, not a speed benchmark. What a stalled service is made of is a long
// stretch of work in which its event loop runs nothing else: STALL_BOUND_MS bounds the longest
// such stretch while each request is in flight (the services share this process's loop; a ticker
// every 10 ms sees every stretch, counted in the CPU time spent in it, so that a machine busy with
// other work does not lengthen it). A linear validator needs a few milliseconds for any of these
// inputs; one quadratic expression takes seconds (normalizePronetUrl's old regexes: 10 s on 64 KB
// of slashes, and 18 ms on 2 KB, so 1.8 s for a bulk of 100 that did not yield). WALL_BOUND_MS
// bounds the whole request, to catch one that waits on something instead; it leaves room for a
// loaded machine (on a 2-core box at load 20, a plain 413 was seen to take 2.8 s), which is why
// wall time is not the measure of a stall. Requests go CONCURRENCY at a time (those with filled
// arrays HEAVY_CONCURRENCY at a time), to keep the run short.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '@glimpse/api';
import { interfaceViolations } from './support/openapi';
import { closeTestDb, startManagementStack } from './support/stack';
import { api, createManager, seedCatalog, type Manager } from '../services/gateway/test/management-helpers';

const STALL_BOUND_MS = 1000;
const WALL_BOUND_MS = 10_000;
const CONCURRENCY = 8;
const HEAVY_CONCURRENCY = 3;
const SIZE = 64 * 1024;
const SMALLEST = 64;
/** Just under the 2,048-character caps (URLs, paths), sent too in arrays filled with items. */
const UNDER_CAPS = 2000;
const MAX_COPIES = 100;

type Json = Record<string, unknown>;
type Schema = Json & {
  $ref?: string;
  maxItems?: number;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  minItems?: number;
  format?: string;
};

/** A run of one separator between a letter and a character no pattern expects at the end. */
const run = (separator: string) => (n: number) => 'a' + separator.repeat(n - 2) + '!';
/** Adversarial text of n characters. */
const PATTERNS: Record<string, (n: number) => string> = {
  "'/' run": run('/'),
  "'.' run": run('.'),
  "'@' run": run('@'),
  "'-' run": run('-'),
  "' ' run": run(' '),
  'nested-quantifier bait': (n) => 'a'.repeat(n - 1) + '!',
  "'%' escapes": (n) => '%2F'.repeat(Math.floor(n / 3)).padEnd(n, '%'),
  'mixed whitespace': (n) => ' \t\n\r'.repeat(Math.floor(n / 4) - 1) + 'a.b!',
  'digit dots': (n) => '1.'.repeat(Math.floor(n / 2) - 1) + '1!',
  'label dots': (n) => 'a.'.repeat(Math.floor(n / 2) - 1) + '/!',
};
// Headers carry visible ASCII only (fetch refuses the rest before sending).
const HEADER_SAFE = (text: string) => /^[\x21-\x7e]*$/.test(text);

const document = buildOpenApiDocument() as { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Schema> } };
const schemas = document.components.schemas;
const resolve = (s: Schema): Schema => (s.$ref ? resolve(schemas[s.$ref.split('/').at(-1)!]!) : s);
const isString = (s: Schema) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));

/** The smallest value the schema accepts as far as shape goes (formats and patterns by a fitting sample). */
function minimal(given: Schema): unknown {
  const s = resolve(given);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const branches = s.oneOf ?? s.anyOf;
  if (branches) return minimal(branches.find((b) => resolve(b).type !== 'null') ?? branches[0]!);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((b) => minimal(b)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((name) => [name, minimal(s.properties![name]!)]));
    case 'array':
      return (s.minItems ?? 0) > 0 ? [minimal(s.items!)] : [];
    case 'string':
      return s.format === 'email' ? 'person@example.com' : s.format === 'uri' ? 'https://example.com/' : s.format === 'date' ? '2026-01-01' : 'abcdefgh';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** A branch of a union fits a template when the template has none of the branch's constants wrong. */
function fits(branch: Schema, template: unknown): boolean {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) return false;
  return Object.entries(resolve(branch).properties ?? {}).every(([name, p]) => resolve(p).const === undefined || (template as Json)[name] === resolve(p).const);
}

interface Location {
  /** Where the text goes, e.g. "body.events[].url (branch 2)" or "query.cursor". */
  name: string;
  /** Inside an array filled with copies: also sent at UNDER_CAPS characters. */
  many: boolean;
  /** The request's body with `text` at this place, the rest as the template or minimal. */
  body(text: string): unknown;
}

/** Every place a string can be put in a value of `given`, starting from `template` (a valid value). */
function stringLocations(given: Schema, template: unknown, build: (value: unknown) => unknown, name: string, out: Location[], depth = 0, many = false): void {
  if (depth > 8) return;
  const s = resolve(given);
  const branches = s.oneOf ?? s.anyOf;
  if (branches) {
    branches.forEach((branch, i) => {
      const start = fits(branch, template) || branches.length === 1 ? template : minimal(branch);
      stringLocations(branch, start, build, branches.length > 1 ? `${name}|${i}` : name, out, depth + 1, many);
    });
    return;
  }
  if (isString(s)) out.push({ name, many, body: (text) => build(text) });
  if (s.properties || s.additionalProperties) {
    const object = (template !== null && typeof template === 'object' && !Array.isArray(template) ? template : (minimal(s) ?? {})) as Json;
    for (const [prop, child] of Object.entries(s.properties ?? {})) {
      stringLocations(child, object[prop], (value) => build({ ...object, [prop]: value }), `${name}.${prop}`, out, depth + 1, many);
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      const value = minimal(s.additionalProperties);
      // The key is a string the client chooses too.
      out.push({ name: `${name}.<key>`, many, body: (text) => build({ ...object, [text]: value }) });
      stringLocations(s.additionalProperties, undefined, (v) => build({ ...object, k: v }), `${name}.*`, out, depth + 1, many);
    }
  }
  if (s.items) {
    const array = Array.isArray(template) && template.length > 0 ? template : [minimal(s.items)];
    // Objects are copied to the most items the array takes (up to MAX_COPIES): per-item work, a hundredfold.
    const copies = resolve(s.items).type === 'object' || resolve(s.items).$ref ? Math.min(Number(s.maxItems ?? 1), MAX_COPIES) : 1;
    const filled = (value: unknown) => build(copies > 1 ? Array.from({ length: copies }, () => value) : [value, ...array.slice(1)]);
    stringLocations(s.items, array[0], filled, copies > 1 ? `${name}[×${copies}]` : `${name}[]`, out, depth + 1, copies > 1 || many);
  }
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  template: string;
  parameters: Parameter[];
  bodySchema?: Schema;
  contentType?: string;
}

const operations: Operation[] = Object.entries(document.paths).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, op]) => {
    const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
    const [contentType, media] = Object.entries(content ?? {})[0] ?? [];
    return { method: method.toUpperCase(), template, parameters: (op.parameters ?? []) as Parameter[], bodySchema: media?.schema, contentType };
  }),
);

// What the operations need to reach their validators: one account with every scope, its event
// token, a name in its catalog, and one resource of each kind whose id the paths can name.
let stack: Awaited<ReturnType<typeof startManagementStack>>;
let manager: Manager;
const ids: Record<string, string> = {};
const EVENT = 'adversarial_signup';
const ORIGIN = 'https://adversarial.test';

beforeAll(async () => {
  loop.start();
  const unlimited = '1000000';
  stack = await startManagementStack(
    {
      LOOKUPS_RATE_LIMIT_PER_SECOND: unlimited,
      ACCOUNT_RATE_LIMIT_PER_SECOND: unlimited,
      LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: unlimited,
      ACCOUNT_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: unlimited,
      EVENTS_RATE_LIMIT_PER_SECOND: unlimited,
      COLLECT_RATE_LIMIT_PER_SECOND: unlimited,
      COLLECT_RATE_LIMIT_PER_IP_PER_SECOND: unlimited,
      AUTH_LOOKUPS_PER_IP_PER_SECOND: unlimited,
      AUTH_LOOKUPS_PER_IP_BURST: unlimited,
    },
    { webhooks: true, visitors: true },
  );
  manager = await createManager(['account:manage', 'visitors:read', 'enrichment:read']);
  await seedCatalog(manager.accountId, [EVENT]);
  const client = api(stack.gateway.url, manager.key);
  const created = async (path: string, body: unknown) => {
    const res = await client.post(path, body);
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Json;
  };
  ids.playbooks = (await created('/account/playbooks', { name: 'adversarial', triggers: [EVENT] })).id as string;
  const site = await created('/account/sites', { name: 'adversarial', origins: [ORIGIN] });
  ids.sites = site.id as string;
  ids.siteKey = site.key as string;
  ids.webhooks = (await created('/account/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['visitor.identified'] })).id as string;
  ids['page-rules'] = (await created('/account/page-rules', { pattern: '/pricing*', event: EVENT })).id as string;
  ids['api-keys'] = manager.keyId;
  ids['event-tokens'] = manager.tokenId;
});

afterAll(async () => {
  loop.stop();
  await stack?.stop();
  await closeTestDb();
});

/** The valid request each operation starts from; only the field under test is changed. */
function baseBody(op: Operation): unknown {
  const event = { event: EVENT, email: 'person@example.com', properties: { plan: 'pro' } };
  switch (`${op.method} ${op.template}`) {
    case 'POST /visitors/enrichment':
      return { email: 'nobody@example.com' };
    case 'POST /visitors/enrichment/bulk':
      return { items: [{ email: 'nobody@example.com' }] };
    case 'POST /companies/enrichment':
      return { domain: 'nobody.example' };
    case 'POST /companies/enrichment/bulk':
      return { items: [{ domain: 'nobody.example' }] };
    case 'POST /events':
    case 'POST /account/events/dry-run':
      return event;
    case 'POST /events/batch':
      return { events: [event] };
    case 'POST /collect':
      return { site: ids.siteKey, events: [{ type: 'pageview', id: 'abcdefgh1', url: `${ORIGIN}/pricing`, path: '/pricing' }] };
    case 'POST /account/playbooks':
    case 'PATCH /account/playbooks/{id}':
      return { name: 'adversarial', triggers: [EVENT] };
    case 'POST /account/sites':
    case 'PATCH /account/sites/{id}':
      return { name: 'adversarial', origins: [ORIGIN], track_events: [EVENT] };
    case 'POST /account/page-rules':
      return { pattern: '/pricing*', event: EVENT };
    case 'POST /account/webhooks':
    case 'PATCH /account/webhooks/{id}':
      return { url: 'http://127.0.0.1:9/hook', events: ['visitor.identified'] };
    default:
      return op.bodySchema ? minimal(op.bodySchema) : undefined;
  }
}

/** A path parameter's valid value: the id of this account's resource the path names. */
function pathValue(op: Operation, name: string): string {
  if (name === 'visitorId') return 'a'.repeat(24);
  if (name === 'email') return 'person@example.com';
  const kind = op.template.split('/')[2] ?? '';
  return ids[kind] ?? '00000000-0000-4000-8000-000000000000';
}

interface Attempt {
  operation?: string;
  location: string;
  pattern: string;
  size: number;
  status: number;
  /** Wall time of the request, and the most CPU time the event loop ran nothing else in meanwhile. */
  ms: number;
  stallMs: number;
  problems: string[];
}

/** Sends the operation with `text` at one location (the rest valid), and times the answer. */
async function send(
  op: Operation,
  target: { kind: 'body'; location: Location } | { kind: 'param'; parameter: Parameter },
  text: string,
): Promise<Omit<Attempt, 'location' | 'pattern' | 'size'>> {
  let path = op.template;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of op.parameters) {
    const mine = target.kind === 'param' && target.parameter === p;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(mine ? text : pathValue(op, p.name)));
    else if (mine && p.in === 'query') query.set(p.name, text);
    else if (mine && p.in === 'header') headers[p.name] = text;
  }
  if (op.template.startsWith('/events')) headers.authorization = `Bearer ${manager.token}`;
  else if (op.template !== '/collect') headers.authorization = `Bearer ${manager.key}`;
  else headers.origin = ORIGIN;
  const body = target.kind === 'body' ? target.location.body(text) : op.bodySchema ? baseBody(op) : undefined;
  if (body !== undefined) headers['content-type'] = op.contentType ?? 'application/json';
  const url = `${stack.gateway.url}${path}${query.size > 0 ? `?${query}` : ''}`;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = performance.now();
  const res = await fetch(url, { method: op.method, headers, body: payload });
  const raw = await res.text();
  const ended = performance.now();
  const ms = ended - started;
  const stallMs = loop.longestStall(started, ended);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    /* not JSON: kept as text, which the document check reports */
  }
  // 431 is Node's own refusal of a request line or headers past its limit, before any handler.
  const problems = res.status === 431 ? [] : interfaceViolations(op.method, url, { status: res.status, body: parsed, headers: res.headers });
  return { status: res.status, ms, stallMs, problems };
}

const attempts: Attempt[] = [];

const refusedForSize = (status: number) => status === 413 || status === 431;

/**
 * The event loop's stalls: a ticker every TICK_MS notes each interval between two ticks that is
 * longer than it should be, with the CPU time this process spent in it. That CPU time is the work
 * that held the loop (on a busy machine the interval also holds time spent waiting for a core,
 * which is not the service's doing), so it is what STALL_BOUND_MS bounds.
 */
const TICK_MS = 10;
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const loop = {
  gaps: [] as { from: number; to: number; cpuMs: number }[],
  last: 0,
  lastCpu: 0,
  timer: undefined as NodeJS.Timeout | undefined,
  start() {
    this.last = performance.now();
    this.lastCpu = cpuNow();
    this.timer = setInterval(() => {
      const now = performance.now();
      const cpu = cpuNow();
      if (now - this.last > 5 * TICK_MS) this.gaps.push({ from: this.last, to: now, cpuMs: cpu - this.lastCpu });
      this.last = now;
      this.lastCpu = cpu;
    }, TICK_MS);
  },
  stop() {
    clearInterval(this.timer);
  },
  /** The most CPU spent in one stall overlapping [from, to] (0 when none was noted). */
  longestStall(from: number, to: number): number {
    // The stretch still running when the request ended is one too.
    let longest = performance.now() - this.last > 5 * TICK_MS ? cpuNow() - this.lastCpu : 0;
    for (const gap of this.gaps) if (gap.to > from && gap.from < to) longest = Math.max(longest, gap.cpuMs);
    return longest;
  },
};

/** Runs the tasks at most `limit` at a time; the results in the tasks' order. */
async function pooled<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

type Target = Parameters<typeof send>[1];

interface Probe {
  target: Target;
  location: string;
  many: boolean;
  patterns: string[];
}

const attemptOf = async (op: Operation, probe: Probe, pattern: string, size: number): Promise<Attempt> => ({
  location: probe.location,
  pattern,
  size,
  ...(await send(op, probe.target, PATTERNS[pattern]!(size))),
});

/**
 * Every pattern at 64 KB at every location; where a field's 64 KB is refused for its size (413,
 * 431), the first pattern finds the largest size that gets through (halving) and every pattern is
 * sent at that; in filled arrays, at UNDER_CAPS too.
 */
async function probeOperation(op: Operation, probes: Probe[], concurrency: number): Promise<Attempt[]> {
  // The size that got through at an earlier location of the same kind (body, path, query, header):
  // where the search resumes after the 64 KB (the fields of one body share its limit).
  const lastFit = new Map<string, number>();
  const sized = await pooled(
    probes.map((probe) => async () => {
      const kind = probe.target.kind === 'body' ? 'body' : probe.target.parameter.in;
      const tries: Attempt[] = [];
      let size = SIZE;
      for (;;) {
        tries.push(await attemptOf(op, probe, probe.patterns[0]!, size));
        if (!refusedForSize(tries.at(-1)!.status)) {
          lastFit.set(kind, size);
          return { probe, size, tries };
        }
        if (size <= SMALLEST) return { probe, size, tries };
        const known = lastFit.get(kind);
        size = known !== undefined && known < size ? known : size / 2;
      }
    }),
    concurrency,
  );
  const rest = sized.flatMap(({ probe, size }) => [
    ...probe.patterns.slice(1).map((pattern) => () => attemptOf(op, probe, pattern, size)),
    // Just under the caps, when the size that got through is well above them.
    ...(probe.many && size >= 2 * UNDER_CAPS ? probe.patterns.map((pattern) => () => attemptOf(op, probe, pattern, UNDER_CAPS)) : []),
  ]);
  return [...sized.flatMap((s) => s.tries), ...(await pooled(rest, concurrency))];
}

const tested = operations.filter((op) => op.parameters.length > 0 || op.bodySchema !== undefined);

describe('adversarial input to every public operation', () => {
  it('covers every operation of the document that takes input, and the string fields of the lookups, events and collect', () => {
    const names = tested.map((op) => `${op.method} ${op.template}`);
    for (const name of [
      'POST /visitors/enrichment',
      'POST /visitors/enrichment/bulk',
      'POST /events',
      'POST /events/batch',
      'POST /collect',
      'POST /account/playbooks',
      'GET /account/usage',
    ])
      expect(names).toContain(name);
    const locations = (op: Operation) => {
      const out: Location[] = [];
      stringLocations(op.bodySchema!, baseBody(op), (v) => v, 'body', out);
      return out.map((l) => l.name);
    };
    expect(locations(tested.find((op) => op.template === '/visitors/enrichment')!)).toEqual([
      'body.email',
      'body.phone',
      'body.email_sha256',
      'body.pronet_url',
      'body.required[]',
    ]);
    expect(locations(tested.find((op) => op.template === '/collect')!).length).toBeGreaterThan(20);
  });

  it.each(tested.map((op) => [`${op.method} ${op.template}`, op] as const))(
    '%s: every string field answered within the bound, with a documented 2xx or 4xx',
    async (_name, op) => {
      const allPatterns = Object.keys(PATTERNS);
      const probes: Probe[] = op.parameters
        .filter((p) => isString(resolve(p.schema)))
        .map((parameter) => ({
          target: { kind: 'param' as const, parameter },
          location: `${parameter.in}.${parameter.name}`,
          many: false,
          patterns: parameter.in === 'header' ? allPatterns.filter((name) => HEADER_SAFE(PATTERNS[name]!(64))) : allPatterns,
        }));
      if (op.bodySchema) {
        const locations: Location[] = [];
        stringLocations(op.bodySchema, baseBody(op), (v) => v, 'body', locations);
        for (const location of locations)
          probes.push({ target: { kind: 'body', location }, location: location.name, many: location.many, patterns: allPatterns });
      }
      // Fewer filled arrays at a time: a hundred copies of a field make bodies of megabytes, and eight
      // bulk calls of 100 lookups at once overload a test database into 503s, which is not what this tests.
      const mine = [
        ...(await probeOperation(
          op,
          probes.filter((p) => !p.many),
          CONCURRENCY,
        )),
        ...(await probeOperation(
          op,
          probes.filter((p) => p.many),
          HEAVY_CONCURRENCY,
        )),
      ];
      attempts.push(...mine.map((a) => ({ ...a, operation: `${op.method} ${op.template}` })));
      const bad = mine
        .filter(
          (a) =>
            a.stallMs > STALL_BOUND_MS ||
            a.ms > WALL_BOUND_MS ||
            a.status >= 500 ||
            a.status < 200 ||
            (a.status >= 300 && a.status < 400) ||
            a.problems.length > 0,
        )
        .map(
          (a) =>
            `${a.location} ← ${a.pattern} (${a.size} chars): ${a.status} in ${Math.round(a.ms)} ms (the loop held for ${Math.round(a.stallMs)} ms of CPU) ${a.problems.join('; ')}`,
        );
      expect(bad).toEqual([]);
      expect(mine.length).toBeGreaterThan(0);
    },
  );

  afterAll(() => {
    if (attempts.length === 0) return;
    const sorted = (values: number[]) => values.sort((a, b) => a - b);
    const wall = sorted(attempts.map((a) => a.ms));
    const stalls = sorted(attempts.map((a) => a.stallMs));
    const statuses = [...new Set(attempts.map((a) => a.status))].sort().join(',');
    const largest = Math.max(...attempts.filter((a) => !refusedForSize(a.status)).map((a) => a.size));
    // Every attempt, for a closer look: ADVERSARIAL_REPORT=/tmp/attempts.json npx jest test/adversarial-input.int.test.ts
    if (process.env.ADVERSARIAL_REPORT) writeFileSync(process.env.ADVERSARIAL_REPORT, JSON.stringify(attempts, null, 1));
    // The figures of the run (docs/testing.md, "No input stalls a service").
    console.log(
      `adversarial input: ${attempts.length} requests over ${tested.length} operations, ${CONCURRENCY} at a time (${HEAVY_CONCURRENCY} with filled arrays); ` +
        `wall median ${wall[wall.length >> 1]!.toFixed(1)} ms, slowest ${wall.at(-1)!.toFixed(1)} ms (bound ${WALL_BOUND_MS}); ` +
        `longest event-loop stall ${stalls.at(-1)!.toFixed(1)} ms of CPU (bound ${STALL_BOUND_MS}); ` +
        `largest text past the limits ${largest} chars; statuses ${statuses}`,
    );
  });
});
