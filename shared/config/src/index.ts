export { parseConfig, ConfigError, baseEnv, port, DEV_INTERNAL_TOKEN } from './config.js';
export { z } from 'zod';
