// The Glimpse API client: typed lookups (types generated from docs/openapi.json), events through an
// in-memory queue that sends batches, and retries that honour Retry-After. Every POST carries an
// Idempotency-Key, made once per call and kept across its retries, so a retry after a lost answer
// never records an event twice or bills a lookup twice.
import { randomUUID } from 'node:crypto';
import type { components } from './api-types.js';
import { GlimpseError, errorFrom } from './errors.js';
import { EventQueue, type BatchResult, type EventInput, type EventQueueOptions } from './event-queue.js';

type Schemas = components['schemas'];
export type EnrichmentInput = Schemas['EnrichmentInput'];
export type EnrichedRecord = Schemas['EnrichedRecord'];
export type VisitorDetails = Schemas['VisitorDetails'];
export type BulkEnrichmentResult = Schemas['BulkEnrichmentResult'];
export type CompanyRecord = Schemas['CompanyRecord'];
export type BulkCompanyEnrichmentResult = Schemas['BulkCompanyEnrichmentResult'];
export type { BatchResult, EventInput };

export interface GlimpseClientOptions {
  /** The gateway, e.g. https://api.glimpse.example */
  baseUrl: string;
  /** For the lookups (glk_…). */
  apiKey?: string;
  /** For the events (gle_…). */
  eventToken?: string;
  /** Retries of a call that failed retryably (429, 409, 503, network): default 3. */
  retries?: number;
  /** The longest pause between retries, whatever Retry-After says (default 30 s). */
  maxRetryDelayMs?: number;
  /** The event queue's batching (size, time) and where refused events are reported. */
  events?: EventQueueOptions;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Makes the call safe to repeat for 24 h; one is made per call when not given. */
  idempotencyKey?: string;
}

export interface EventReceipt {
  /** The id of the accepted event (X-Event-Id). */
  eventId: string;
}

/** What a call answered: its body and the headers a client acts on. */
interface Answer<T> {
  body: T;
  headers: Headers;
}

export interface CreditsAndLimits {
  /** RateLimit-Remaining of the last lookup answer. */
  rateLimitRemaining?: number;
  /** Credits-Remaining of the last lookup answer (only for an account with a credit limit). */
  creditsRemaining?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The text without its trailing '/'s, by a scan (`/\/+$/` is tried from every '/' of a run). */
function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(0, end);
}

export class GlimpseClient {
  private readonly baseUrl: string;
  private readonly retries: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly queue: EventQueue;
  /** Where the account stands, from the last lookup answer. */
  readonly standing: CreditsAndLimits = {};

  constructor(private readonly options: GlimpseClientOptions) {
    this.baseUrl = withoutTrailingSlashes(options.baseUrl);
    this.retries = options.retries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.fetchImpl = options.fetch ?? fetch;
    this.queue = new EventQueue((events) => this.sendBatch(events), options.events);
  }

  /** A visitor's details (GET /visitors/{visitorId}/details). */
  async visitorDetails(visitorId: string): Promise<VisitorDetails> {
    return (await this.lookup<VisitorDetails>('GET', `/visitors/${encodeURIComponent(visitorId)}/details`)).body;
  }

  /** One enrichment; a match is billed once however often the call is retried. */
  async enrich(input: EnrichmentInput, options: CallOptions = {}): Promise<EnrichedRecord> {
    return (await this.lookup<EnrichedRecord>('POST', '/visitors/enrichment', input, options)).body;
  }

  /** Up to 100 enrichments, each answered in order (status 200 with its record, or its error). */
  async enrichBulk(items: EnrichmentInput[], options: CallOptions = {}): Promise<BulkEnrichmentResult> {
    return (await this.lookup<BulkEnrichmentResult>('POST', '/visitors/enrichment/bulk', { items }, options)).body;
  }

  /** A company's firmographics by its domain (or its site's URL); a match is billed once however often the call is retried. */
  async enrichCompany(domain: string, options: CallOptions = {}): Promise<CompanyRecord> {
    return (await this.lookup<CompanyRecord>('POST', '/companies/enrichment', { domain }, options)).body;
  }

  /** Up to 100 companies by domain, each answered in order (status 200 with its record, or its error). */
  async enrichCompanies(domains: string[], options: CallOptions = {}): Promise<BulkCompanyEnrichmentResult> {
    const items = domains.map((domain) => ({ domain }));
    return (await this.lookup<BulkCompanyEnrichmentResult>('POST', '/companies/enrichment/bulk', { items }, options)).body;
  }

  /** Queues an event; it is sent in a batch (by size or time), or by flush() / shutdown(). */
  track(event: EventInput): void {
    this.queue.push(event);
  }

  /** Sends one event now (POST /events) and answers its id. */
  async sendEvent(event: EventInput, options: CallOptions = {}): Promise<EventReceipt> {
    const { headers } = await this.call('POST', '/events', this.options.eventToken, event, options.idempotencyKey ?? randomUUID());
    return { eventId: headers.get('x-event-id') ?? '' };
  }

  /** Sends every queued event and waits until each batch is answered. */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /** Flushes; call it before the process exits (no queued event is lost on a clean shutdown). */
  async shutdown(): Promise<void> {
    await this.flush();
  }

  /** Events waiting in the queue. */
  get queuedEvents(): number {
    return this.queue.size;
  }

  /**
   * A batch, retried whole with its Idempotency-Key while any of its events failed retryably
   * (Kafka unavailable): the events already accepted are answered again, never recorded twice.
   */
  private async sendBatch(events: EventInput[]): Promise<BatchResult> {
    const key = randomUUID();
    for (let attempt = 0; ; attempt++) {
      const { body, headers } = await this.call<BatchResult>('POST', '/events/batch', this.options.eventToken, { events }, key);
      const retryable = body.results.some((r) => 'error' in r && (r.error === 'service_unavailable' || r.error === 'idempotency_key_in_flight'));
      if (!retryable || attempt >= this.retries) return body;
      await sleep(this.retryDelay(attempt, headers.get('retry-after')));
    }
  }

  private async lookup<T>(method: 'GET' | 'POST', path: string, body?: unknown, options: CallOptions = {}): Promise<Answer<T>> {
    const key = method === 'POST' ? (options.idempotencyKey ?? randomUUID()) : undefined;
    try {
      const answer = await this.call<T>(method, path, this.options.apiKey, body, key);
      this.noteStanding(answer.headers);
      return answer;
    } catch (err) {
      if (err instanceof GlimpseError && err.cause instanceof Headers) this.noteStanding(err.cause);
      throw err;
    }
  }

  private noteStanding(headers: Headers): void {
    const number = (name: string) => {
      const value = headers.get(name);
      return value === null ? undefined : Number(value);
    };
    this.standing.rateLimitRemaining = number('ratelimit-remaining');
    this.standing.creditsRemaining = number('credits-remaining');
  }

  private retryDelay(attempt: number, retryAfter: string | null): number {
    const asked = retryAfter !== null && /^[0-9]+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
    // Retry-After when given, else exponential back-off; jitter spreads clients that failed together.
    const base = asked > 0 ? asked : 250 * 2 ** attempt;
    return Math.min(this.maxRetryDelayMs, base + Math.floor(Math.random() * 100));
  }

  /** One call, retried while it fails retryably, with the same Idempotency-Key every time. */
  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    credential: string | undefined,
    body: unknown,
    idempotencyKey: string | undefined,
  ): Promise<Answer<T>> {
    if (!credential) throw new GlimpseError('unauthorized', `no credential configured for ${path} (apiKey for lookups, eventToken for events)`, 0);
    const headers: Record<string, string> = { authorization: `Bearer ${credential}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    for (let attempt = 0; ; attempt++) {
      let error: GlimpseError;
      try {
        const res = await this.fetchImpl(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await res.text();
        const parsed: unknown = text.length > 0 ? JSON.parse(text) : null;
        if (res.ok) return { body: parsed as T, headers: res.headers };
        error = errorFrom(res.status, parsed, res.headers.get('retry-after'));
        Object.defineProperty(error, 'cause', { value: res.headers });
      } catch (err) {
        if (err instanceof GlimpseError) throw err;
        error = new GlimpseError('network_error', `no answer from ${path}: ${(err as Error).message}`, 0, undefined, { cause: err });
      }
      if (!error.retryable || attempt >= this.retries) throw error;
      await sleep(this.retryDelay(attempt, error.retryAfterSeconds === undefined ? null : String(error.retryAfterSeconds)));
    }
  }
}

export function createGlimpseClient(options: GlimpseClientOptions): GlimpseClient {
  return new GlimpseClient(options);
}
