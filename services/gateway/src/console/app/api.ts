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
  const res = await send(method, path, body);
  // 204 No Content: callers of such endpoints (DELETE) do not read the data.
  if (res.status === 204) return { status: 204, data: null as T };
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) throw refusal(res, data);
  return { status: res.status, data: data as T };
}

/**
 * A file the API answers (GET /account/companies.csv): its bytes, and the name its
 * Content-Disposition gives (else `fallbackName`). Fetched with the key like any call: the API
 * takes no cookie, so a plain link could not download it.
 */
export async function apiFile(path: string, fallbackName: string): Promise<{ blob: Blob; name: string }> {
  const res = await send('GET', path);
  if (!res.ok) throw refusal(res, await res.json().catch(() => null));
  return { blob: await res.blob(), name: attachmentName(res.headers.get('content-disposition')) ?? fallbackName };
}

async function send(method: Method, path: string, body?: unknown): Promise<Response> {
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
  try {
    return await fetch(new URL(path, API_ROOT), init);
  } catch {
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check the connection and try again.');
  }
}

function refusal(res: Response, data: unknown): ApiError {
  const { error, message } = errorFields(data);
  return new ApiError(res.status, error ?? 'http_error', message ?? `The gateway answered ${res.status}.`);
}

// attachment; filename="companies.csv" (or filename*=UTF-8''…): a plain name only, no path.
function attachmentName(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(header)?.[1];
  let name: string | undefined;
  try {
    name = extended ? decodeURIComponent(extended) : /filename="?([^";]+)"?/i.exec(header)?.[1];
  } catch {
    name = undefined;
  }
  const plain = name?.replace(/[/\\]/g, '_').trim();
  return plain ? plain : null;
}

function errorFields(data: unknown): { error?: string; message?: string } {
  if (typeof data !== 'object' || data === null) return {};
  const { error, message } = data as Record<string, unknown>;
  return { error: typeof error === 'string' ? error : undefined, message: typeof message === 'string' ? message : undefined };
}
