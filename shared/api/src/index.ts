export { MAX_BATCH_EVENTS, batchResultSchema, errorBodySchema, eventAckSchema, eventBatchSchema, eventInputSchema, type EventInput } from './events.js';
export { MAX_BULK_ITEMS, MAX_REQUIRED, enrichmentBulkSchema, enrichmentInputSchema, type EnrichmentInput } from './enrichment.js';
export { API_VERSION, buildOpenApiDocument } from './document.js';
export { REENROLLMENT_POLICIES, UNCHANGED_REASONS, apiKeyInputSchema, playbookCreateSchema, playbookUpdateSchema, suppressionInputSchema } from './management.js';
export {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  webhookAttemptSchema,
  webhookCreateSchema,
  webhookDeliverySchema,
  webhookEndpointCreatedSchema,
  webhookEndpointSchema,
  webhookSecretRotatedSchema,
  webhookUpdateSchema,
  type WebhookEventType,
} from './webhooks.js';
export {
  COLLECT_BODY_LIMIT_BYTES,
  COLLECT_CONSENT_STATES,
  COLLECT_LINK_TOKEN_MAX,
  MAX_COLLECT_EVENTS,
  MAX_SITES_PER_ACCOUNT,
  MAX_SITE_ORIGINS,
  SITE_CONSENT_MODES,
  SITE_KEY_PATTERN,
  SITE_SETTING_DEFAULTS,
  collectAnswerSchema,
  collectEventSchema,
  collectRequestSchema,
  siteCreateSchema,
  siteSchema,
  siteStatsSchema,
  siteTrafficSchema,
  siteUpdateSchema,
  visitorSummarySchema,
  type CollectEvent,
  type CollectRequest,
  type SiteConsentMode,
  type SiteCreateInput,
  type SiteUpdateInput,
} from './sites.js';
export {
  LINK_TOKEN_TTL_DAYS,
  MAX_PAGE_RULES_PER_ACCOUNT,
  PAGE_RULE_PATTERN_MAX,
  linkTokenCreatedSchema,
  linkTokenInputSchema,
  pageRuleInputSchema,
  pageRuleSchema,
  visitorRecordSchema,
  type LinkTokenInput,
} from './identification.js';
