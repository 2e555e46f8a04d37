export { startWebhooksService } from './start.js';
export type { RunningWebhooksService } from './start.js';
export { loadConfig, DEV_WEBHOOKS_SECRET_KEY } from './config.js';
export { WEBHOOK_EVENT_TYPES } from './domain/effect-payload.js';
export type { WebhookPayload, WebhookEventType } from './domain/effect-payload.js';
export { slackMessageSchema } from './domain/slack-blocks.js';
