// The node-postgres pool every service's Prisma client runs on, through @prisma/adapter-pg (Prisma 7
// has no Rust engine). Each service has a client of its own, holding only its schema's models
// (@glimpse/db/identity, /playbook, /enrichment, /webhooks, /visitors: scripts/prisma-generate.js).
// Every pool has timeouts: a Postgres that refuses fails fast, and one that hangs (accepts and
// never answers, or a stuck statement) fails within bounds instead of holding requests forever.
import { PrismaPg } from '@prisma/adapter-pg';

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

/** The adapter a service's PrismaClient is built on: a bounded pool with every timeout set. */
export function postgresAdapter({ databaseUrl, poolSize = 10, timeouts = {} }: CreateDbOptions): PrismaPg {
  const t = { ...DEFAULT_DB_TIMEOUTS, ...timeouts };
  return new PrismaPg({
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
}
