// Tells a failing dependency (Postgres through Prisma or pg, Redis, Kafka, an internal HTTP
// service) from a bug: the first is a 503 the client may retry, the second a 500. It also gives
// the short, fixed reason readiness shows, never the driver's own text (which can quote queries,
// hosts or file paths).

/** Node socket errors: the peer is down, unreachable or gone. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ESOCKETTIMEDOUT',
]);

/**
 * Prisma's codes for "the database is not there or not answering": P1001 unreachable, P1002
 * timed out, P1003 database missing, P1008 operation timed out, P1017 connection closed, P2024
 * pool timeout, P2037 too many connections.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1003', 'P1008', 'P1017', 'P2024', 'P2037']);

/** Prisma's driver-adapter error kinds that mean the same. */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
]);

/**
 * SQLSTATE classes of an unavailable server: 08 connection exception, 53 insufficient resources,
 * 57 operator intervention (57014: statement timeout or cancel, 57P01: shutdown), 58 system error.
 */
const SQLSTATE_CLASSES = new Set(['08', '53', '57', '58']);

/**
 * A transaction that lost to another one: 40001 serialization failure, 40P01 deadlock (Postgres
 * rolled this one back), Prisma's P2034 and its adapter's TransactionWriteConflict for the same.
 * Nothing is wrong with the request: tried again, it goes through, so it is a 503, not a 500.
 */
const CONFLICT_SQLSTATES = new Set(['40001', '40P01']);

/** node-postgres raises these as plain Errors. */
const PG_MESSAGES = [/^Connection terminated/, /^Query read timeout/, /^timeout exceeded when trying to connect/, /is not queryable/, /^Client was closed/];

/** ioredis, when Redis is down or slow (enableOfflineQueue: false, commandTimeout). */
const REDIS_MESSAGES = [
  /^Connection is closed/,
  /^Stream isn't writeable/,
  /^Command timed out/,
  /^Reached the max retries per request limit/,
  /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN) /,
];

export type DependencyReason = 'connection refused' | 'timed out' | 'connection lost' | 'unreachable' | 'overloaded' | 'unavailable' | 'contended';

interface Inspectable {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown; originalCode?: unknown } } };
}

function reasonOf(e: Inspectable): DependencyReason | null {
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timed out';
  if (NETWORK_CODES.has(code)) return code === 'ECONNRESET' || code === 'EPIPE' ? 'connection lost' : 'unreachable';

  const adapter = e.meta?.driverAdapterError?.cause;
  if (adapter) {
    const kind = String(adapter.kind ?? '');
    const sqlState = String(adapter.originalCode ?? adapter.code ?? '');
    if (kind === 'DatabaseNotReachable') return 'unreachable';
    if (kind === 'SocketTimeout') return 'timed out';
    if (kind === 'TooManyConnections') return 'overloaded';
    if (kind === 'TransactionWriteConflict' || CONFLICT_SQLSTATES.has(sqlState)) return 'contended';
    if (ADAPTER_KINDS.has(kind)) return 'unavailable';
    if (sqlState === '57014') return 'timed out';
    if (SQLSTATE_CLASSES.has(sqlState.slice(0, 2))) return 'unavailable';
  }
  if (name.startsWith('PrismaClient') && code === 'P2034') return 'contended';
  if (CONFLICT_SQLSTATES.has(code)) return 'contended';
  if (name.startsWith('PrismaClient') && PRISMA_CODES.has(code)) return code === 'P1008' || code === 'P1002' || code === 'P2024' ? 'timed out' : 'unavailable';
  if (name === 'PrismaClientInitializationError' || name === 'PrismaClientRustPanicError') return 'unavailable';
  if (/^[0-9A-Z]{5}$/.test(code) && SQLSTATE_CLASSES.has(code.slice(0, 2))) return code === '57014' ? 'timed out' : 'unavailable';
  if (PG_MESSAGES.some((p) => p.test(message))) return /timeout/.test(message) ? 'timed out' : 'connection lost';

  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((p) => p.test(message))) return /timed out/.test(message) ? 'timed out' : 'unavailable';
  if (name.startsWith('KafkaJS') || name === 'KafkaUnavailableError') return /timeout/i.test(name + message) ? 'timed out' : 'unavailable';
  if (code.startsWith('UND_ERR_')) return /TIMEOUT/.test(code) ? 'timed out' : code === 'UND_ERR_SOCKET' ? 'connection lost' : 'unavailable';
  return null;
}

/** Why a dependency failed, walking the error's causes, or null when the error is not a dependency failure. */
export function dependencyFailure(err: unknown): DependencyReason | null {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    const reason = reasonOf(e as Inspectable);
    if (reason) return reason;
    e = (e as Inspectable).cause;
  }
  return null;
}

export function isDependencyFailure(err: unknown): boolean {
  return dependencyFailure(err) !== null;
}
