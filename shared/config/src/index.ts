export { parseConfig, ConfigError, baseEnv, port, DEV_INTERNAL_TOKEN, internalTokenEnv, internalTokenRequiredInProduction, DATABASE_ROLES, DATABASE_SCHEMAS, roleDatabaseUrl, databaseUrlEnv } from './config.js';
export type { KafkaConnectionConfig, DatabaseService } from './config.js';
export { z } from 'zod';
