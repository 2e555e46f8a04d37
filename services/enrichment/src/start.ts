// Starts the enrichment service: Prisma on Postgres behind an internal HTTP API.
import { createDb } from '@glimpse/db';
import { createBaseApp, createHttpServer } from '@glimpse/http';
import { createLogger, type Logger } from '@glimpse/logging';
import { internalRouter } from './http/internal-routes.js';
import { loadConfig, type EnrichmentConfig } from './config.js';

export interface RunningEnrichmentService {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startEnrichmentService(
  config: EnrichmentConfig = loadConfig(),
  logger: Logger = createLogger({ service: 'enrichment', level: config.LOG_LEVEL }),
): Promise<RunningEnrichmentService> {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: 10 });
  const base = createBaseApp({ logger, checks: { postgres: async () => { await db.$queryRaw`SELECT 1`; } } });
  base.app.use(internalRouter({ db, defaultPhoneRegion: config.DEFAULT_PHONE_REGION, internalToken: config.INTERNAL_TOKEN }));
  const server = createHttpServer({ app: base.finish(), port: config.ENRICHMENT_PORT, host: config.HOST });
  const address = await server.start();
  logger.info({ port: address.port }, 'enrichment service listening');
  return {
    ...address,
    async stop() {
      await server.stop();
      await db.$disconnect();
      logger.info('enrichment service stopped');
    },
  };
}
