export { parseConfig, ConfigError, baseEnv, port, DEV_INTERNAL_TOKEN, internalTokenEnv, internalTokenRequiredInProduction } from './config.js';
export type { KafkaConnectionConfig } from './config.js';
export { z } from 'zod';
