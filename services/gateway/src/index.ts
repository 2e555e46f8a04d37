export { startGateway } from './start.js';
export type { RunningGateway } from './start.js';
export { createGatewayApp } from './app.js';
export { loadConfig } from './config.js';
export { rawEventKeys, RAW_EVENT_TTL_SECONDS } from './data/raw-event-store.js';
// Sites, for the operator CLI (the same rules and store as /account/sites).
export { parseSiteCreate, normalizeOrigin } from './domain/site-input.js';
export { createSite, listSites, removeSite, type SiteRecord } from './data/site-repository.js';
export { createVisitorsClient, type VisitorsClient } from './data/visitors-client.js';
