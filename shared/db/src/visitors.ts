// The visitors service's Prisma client: the visitors schema's models and nothing else.
import { postgresAdapter, type CreateDbOptions } from './client.js';
import { PrismaClient } from './generated/visitors/client.js';

export type Db = InstanceType<typeof PrismaClient>;
export const createDb = (options: CreateDbOptions): Db => new PrismaClient({ adapter: postgresAdapter(options) });
export { Prisma } from './generated/visitors/client.js';
export type * from './generated/visitors/client.js';
