export { startWebhooksService } from './start.js';
export type { RunningWebhooksService } from './start.js';
export { loadConfig } from './config.js';
export { WEBHOOK_EVENT_TYPES } from './domain/effect-payload.js';
export type { WebhookPayload, WebhookEventType } from './domain/effect-payload.js';
