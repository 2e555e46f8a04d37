// Builds the Prisma client on node-postgres through @prisma/adapter-pg (Prisma 7 has no Rust engine).
// Every pool has timeouts: a Postgres that refuses fails fast, and one that hangs (accepts and
// never answers, or a stuck statement) fails within bounds instead of holding requests forever.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';

export type Db = InstanceType<typeof PrismaClient>;

export interface DbTimeouts {
  /** Giving up on opening a connection (a server that accepts and never answers). */
  connectTimeoutMs: number;
  /** Postgres cancels a statement running longer than this. */
  statementTimeoutMs: number;
  /** Postgres ends a session left idle inside a transaction longer than this. */
  idleInTransactionTimeoutMs: number;
  /** The pool closes connections idle longer than this. */
  idleTimeoutMs: number;
}

export const DEFAULT_DB_TIMEOUTS: Readonly<DbTimeouts> = {
  connectTimeoutMs: 5000,
  statementTimeoutMs: 15_000,
  idleInTransactionTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
};

/** The client also stops waiting for an answer a little after the server should have cancelled. */
const CLIENT_GRACE_MS = 1000;

export interface CreateDbOptions {
  databaseUrl: string;
  /** Connections in the pool; small services want few. */
  poolSize?: number;
  timeouts?: Partial<DbTimeouts>;
}

export function createDb({ databaseUrl, poolSize = 10, timeouts = {} }: CreateDbOptions): Db {
  const t = { ...DEFAULT_DB_TIMEOUTS, ...timeouts };
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: t.connectTimeoutMs,
    idleTimeoutMillis: t.idleTimeoutMs,
    statement_timeout: t.statementTimeoutMs,
    idle_in_transaction_session_timeout: t.idleInTransactionTimeoutMs,
    // A server that stops answering mid-query (frozen, or a dead network path) is given up on.
    query_timeout: t.statementTimeoutMs + CLIENT_GRACE_MS,
    keepAlive: true,
  });
  return new PrismaClient({ adapter });
}
