// The webhooks service's Prisma client: the webhooks schema's models and nothing else.
import { postgresAdapter, type CreateDbOptions } from './client.js';
import { PrismaClient } from './generated/webhooks/client.js';

export type Db = InstanceType<typeof PrismaClient>;
/** A transaction's client, as $transaction hands it to its callback. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];
export const createDb = (options: CreateDbOptions): Db => new PrismaClient({ adapter: postgresAdapter(options) });
export { Prisma } from './generated/webhooks/client.js';
export type * from './generated/webhooks/client.js';
