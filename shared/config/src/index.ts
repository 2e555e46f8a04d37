export { parseConfig, ConfigError, baseEnv, port, DEV_INTERNAL_TOKEN, internalTokenEnv, internalTokenRequiredInProduction, INTERNAL_CALLERS, devInternalToken, isDevInternalToken, internalTokenEnvFor, parseInternalTokens, internalTokensEnv, internalTokensRequiredInProduction, DATABASE_ROLES, DATABASE_SCHEMAS, roleDatabaseUrl, databaseUrlEnv, serviceEnv, groupIdEnv, sessionTimeoutEnv, secretRequiredInProduction } from './config.js';
export type { KafkaConnectionConfig, DatabaseService, InternalCaller, InternalTokenDigests } from './config.js';
export { z } from 'zod';
