export { startGateway } from './start.js';
export type { RunningGateway } from './start.js';
export { createGatewayApp } from './app.js';
export { loadConfig } from './config.js';
export { rawEventKeys, RAW_EVENT_TTL_SECONDS } from './data/raw-event-store.js';
