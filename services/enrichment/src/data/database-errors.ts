// Which errors mean "the database cannot be reached or is overloaded" (retry later) rather than a
// bug: Prisma wraps the driver's error as driverAdapterError, whose cause names its kind.
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TlsConnectionError']);
// SQLSTATE classes and codes of the same: connection exceptions, shutdown, cannot connect now,
// too many connections, a statement cancelled by its timeout.
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]$|53300$|57014$)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

interface Cause {
  kind?: string;
  originalCode?: string;
  code?: string;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { meta?: { driverAdapterError?: { cause?: Cause } }; code?: string; message?: string } | undefined;
  const cause = e?.meta?.driverAdapterError?.cause;
  if (cause) {
    if (cause.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
    const sqlState = cause.originalCode ?? cause.code;
    return typeof sqlState === 'string' && UNAVAILABLE_SQLSTATE.test(sqlState);
  }
  // Raised by the pg driver directly (the import's own connection) or by a pool that cannot connect.
  if (typeof e?.code === 'string') return NETWORK_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code);
  return /Can't reach database server|Connection terminated|timeout exceeded when trying to connect/i.test(e?.message ?? '');
}
