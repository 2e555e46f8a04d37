// The package's surface: the public schemas and their rules, and the OpenAPI document. Every export
// of the schema modules, but of management.ts, events.ts and segments.ts only those named (the rest serve the document).
export { MAX_BATCH_EVENTS, batchResultSchema, errorBodySchema, eventAckSchema, eventBatchSchema, eventInputSchema, type EventInput } from './events.js';
export * from './enrichment.js';
export * from './companies.js';
export * from './company-views.js';
export { API_VERSION, buildOpenApiDocument } from './document.js';
export {
  REENROLLMENT_POLICIES,
  UNCHANGED_REASONS,
  apiKeyInputSchema,
  playbookCreateSchema,
  playbookUpdateSchema,
  suppressionInputSchema,
  type ApiKey,
  type ApiKeyCreated,
  type CatalogPage,
  type DryRun,
  type Enrollment,
  type Erasure,
  type EventReceipt,
  type EventToken,
  type EventTokenCreated,
  type Playbook,
  type RecentEvent,
  type Suppression,
  type SuppressionCreated,
  type Usage,
} from './management.js';
export * from './webhooks.js';
export * from './alerts.js';
export * from './sites.js';
export * from './identification.js';
export * from './records.js';
export * from './intent.js';
export * from './webhook-payloads.js';
export {
  alertSettingsSchema,
  segmentFilterSchema,
  segmentInputSchema,
  segmentUpdateSchema,
  type AlertSettings,
  type Segment,
  type SegmentFilter,
  type SegmentKind,
  type SegmentMember,
} from './segments.js';
export type { InternalVisitorPageViews } from './internal-visitors.js';
