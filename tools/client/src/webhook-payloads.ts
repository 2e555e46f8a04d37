// The bodies of the webhook deliveries, by event type: the document's webhooks section, for a
// receiver that checks the signature and then reads the JSON.
import type { components } from './api-types.js';

type Schemas = components['schemas'];

export interface WebhookPayloads {
  'enrollment.started': Schemas['EnrollmentPayload'];
  'enrollment.stopped': Schemas['EnrollmentPayload'];
  'visitor.identified': Schemas['VisitorIdentifiedPayload'];
  'company.visited': Schemas['CompanyVisitedPayload'];
  'segment.entered': Schemas['SegmentEnteredPayload'];
  'segment.digest': Schemas['SegmentDigestPayload'];
}
/** Any delivery's body; its type field tells which. */
export type WebhookPayload = WebhookPayloads[keyof WebhookPayloads];
