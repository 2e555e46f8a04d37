// Builds the Prisma client on node-postgres through @prisma/adapter-pg (Prisma 7 has no Rust engine).
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';

export type Db = InstanceType<typeof PrismaClient>;

export interface CreateDbOptions {
  databaseUrl: string;
  /** Connections in the pool; small services want few. */
  poolSize?: number;
}

export function createDb({ databaseUrl, poolSize = 10 }: CreateDbOptions): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize });
  return new PrismaClient({ adapter });
}
