// The CLI's way to the operator API (a gateway's /operator): the front door, with the operator
// token, instead of the gateway's database. The token comes from the environment only
// (GLIMPSE_OPERATOR_TOKEN): a flag would show it in the process list and the shell's history.
import { UsageError } from './command.js';
import { loadConfig, type CliConfig } from './config.js';

/** What the operator API answers for an account. */
export interface OperatorAccount {
  id: string;
  name: string;
  addons: { workflows: boolean };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperatorApi {
  /** One call; `body` is sent as JSON. A 204 answers null; an error answer throws {error}: {message}. */
  call(method: Method, path: string, body?: unknown): Promise<unknown>;
  /** The same call on the account's management API, acted on by the operator: /operator/accounts/ID/account/…. */
  forAccount(accountId: string, method: Method, path: string, body?: unknown): Promise<unknown>;
  /**
   * POSTs a file (or a part of one) as it is read, for the imports: no timeout, an import answers
   * when it is written. Answers and errors as call does.
   */
  upload(path: string, body: Uint8Array | AsyncIterable<Uint8Array>, contentType: string): Promise<unknown>;
}

const TIMEOUT_MS = 10_000;

/** The operator API as configured (GLIMPSE_URL or --url, and GLIMPSE_OPERATOR_TOKEN); a usage error saying what is missing. */
export function operatorApi(config: Pick<CliConfig, 'GLIMPSE_URL' | 'GLIMPSE_OPERATOR_TOKEN'>, url?: string): OperatorApi {
  const base = url ?? config.GLIMPSE_URL;
  const token = config.GLIMPSE_OPERATOR_TOKEN;
  const missing = [base ? null : 'GLIMPSE_URL (or --url)', token ? null : 'GLIMPSE_OPERATOR_TOKEN'].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`this command goes through the gateway's operator API: set ${missing.join(' and ')}`);
  if (!/^https?:\/\//.test(base!)) throw new UsageError(`--url: ${base} is not an http(s) URL`);
  const root = base!.endsWith('/') ? base!.slice(0, -1) : base!;
  const api: OperatorApi = {
    forAccount: (accountId, method, path, body) => api.call(method, `/operator/accounts/${encodeURIComponent(accountId)}/account${path}`, body),
    async call(method, path, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return answerOf(root, () =>
        fetch(`${root}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        }),
      );
    },
    upload: (path, body, contentType) =>
      answerOf(root, () =>
        fetch(`${root}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
          // A stream is sent as it is read (fetch needs to be told it is one-way).
          body: body as RequestInit['body'],
          ...(body instanceof Uint8Array ? {} : { duplex: 'half' }),
        } as RequestInit),
      ),
  };
  return api;
}

/** Sends one request and reads its answer: the JSON body, null for a 204, else an OperatorApiError. */
async function answerOf(root: string, send: () => Promise<Response>): Promise<unknown> {
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new Error(`the operator API at ${root} did not answer: ${cause}`, { cause: err });
  }
  if (res.status === 204) return null;
  const text = await res.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (res.ok && answer !== undefined) return answer;
  const { error, message } = (answer ?? {}) as { error?: unknown; message?: unknown };
  if (typeof error !== 'string') throw new Error(`the operator API at ${root} answered HTTP ${res.status}`);
  // The gateway's {error, message}, printed as the CLI prints its own errors. A gateway without
  // OPERATOR_TOKEN has no /operator: its 404 names no route, not the account.
  const said = typeof message === 'string' ? message : `HTTP ${res.status}`;
  const hint = error === 'not_found' && said.startsWith('no route') ? ' (that gateway has no operator API: is its OPERATOR_TOKEN set?)' : '';
  const retryAfter = Number(res.headers.get('retry-after'));
  throw new OperatorApiError(error, `${said}${hint}`, res.status, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}

/** An error answer of the gateway, printed as the CLI prints its own ({error}: {message}, exit 1). */
export class OperatorApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The HTTP status, and the seconds a 429 or 503 asked to wait before a retry. */
    readonly status?: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${message}`);
    this.name = 'OperatorApiError';
  }
}

/** The operator API as the environment configures it (GLIMPSE_URL, GLIMPSE_OPERATOR_TOKEN), or --url. */
export function configuredApi(values: Record<string, unknown>): OperatorApi {
  return operatorApi(loadConfig(), typeof values.url === 'string' ? values.url : undefined);
}
