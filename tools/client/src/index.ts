export {
  GlimpseClient,
  createGlimpseClient,
  type BulkCompanyEnrichmentResult,
  type BulkEnrichmentResult,
  type CallOptions,
  type CompanyRecord,
  type EnrichedRecord,
  type EnrichmentInput,
  type EventReceipt,
  type GlimpseClientOptions,
  type VisitorDetails,
} from './client.js';
export { GlimpseError, NotFoundError, PaymentRequiredError, RateLimitedError, type ErrorCode } from './errors.js';
export type { BatchResult, EventInput, EventQueueOptions } from './event-queue.js';
export type { components, paths, webhooks } from './api-types.js';
export type { WebhookPayload, WebhookPayloads } from './webhook-payloads.js';
