// An internal service's answer as the gateway relays it: the status, the relayed headers and the
// JSON text as sent. The HTTP client (data/internal-service.ts) makes them; a kept lookup answer
// (idempotent-lookup.ts) is made into one again.

export interface UpstreamResponse {
  status: number;
  /** The relayed headers the service set (lower-case names). */
  headers: Record<string, string>;
  /** The JSON text as the service sent it ('' when there is none, as for 204). */
  raw: string;
  /** The parsed body, or null when there is none; parsed only when asked for. */
  readonly body: unknown;
}

export function upstreamResponse(status: number, raw: string, headers: Record<string, string> = {}): UpstreamResponse {
  let parsed: { value: unknown } | undefined;
  return {
    status,
    headers,
    raw,
    get body() {
      parsed ??= { value: raw.length === 0 ? null : JSON.parse(raw) };
      return parsed.value;
    },
  };
}
