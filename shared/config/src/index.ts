export { parseConfig, ConfigError, baseEnv, port } from './config.js';
export { z } from 'zod';
