// The management API (/account/…) called with the signed-in key: JSON in and out, errors as
// ApiError carrying the API's {error, message}.
import { currentKey } from './session';

const API_ROOT = new URL('../account/', document.baseURI); // the console lives at /console/

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A refusal the console makes itself, before asking the API (shown like the API's own). */
export const invalid = (message: string): ApiError => new ApiError(0, 'invalid_request', message);

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

// The answer's shape is the API's contract (docs/openapi.json): T names it, it is not checked here.
export async function api<T = unknown>(method: Method, path: string, body?: unknown): Promise<T> {
  return (await call<T>(method, path, body)).data;
}

// The status too, where it tells something (POST /account/suppressions: 201 new, 200 already).
export async function call<T = unknown>(method: Method, path: string, body?: unknown): Promise<{ status: number; data: T }> {
  const init: RequestInit & { headers: Record<string, string> } = {
    method,
    headers: { authorization: `Bearer ${currentKey()}` },
    cache: 'no-store',
    credentials: 'omit',
  };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(new URL(path, API_ROOT), init);
  } catch {
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check the connection and try again.');
  }
  // 204 No Content: callers of such endpoints (DELETE) do not read the data.
  if (res.status === 204) return { status: 204, data: null as T };
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const { error, message } = errorFields(data);
    throw new ApiError(res.status, error ?? 'http_error', message ?? `The gateway answered ${res.status}.`);
  }
  return { status: res.status, data: data as T };
}

function errorFields(data: unknown): { error?: string; message?: string } {
  if (typeof data !== 'object' || data === null) return {};
  const { error, message } = data as Record<string, unknown>;
  return { error: typeof error === 'string' ? error : undefined, message: typeof message === 'string' ? message : undefined };
}
