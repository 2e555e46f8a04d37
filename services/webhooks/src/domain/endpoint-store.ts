// The store the management use cases (manage-endpoints.ts) keep an account's endpoints and read
// their deliveries through; data/endpoint-repository.ts is its Postgres side.
import type { WebhookEndpointKind } from '@glimpse/api';
import type { WebhookEventType } from './effect-payload.js';

export interface EndpointView {
  id: string;
  kind: WebhookEndpointKind;
  /** As stored: a Slack endpoint's is masked before it is answered (manage-endpoints). */
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  /** "failing" (disabled after a day of failed attempts), "user", or "revoked" (Slack answered 404 or 410); null while enabled. */
  disabledReason: string | null;
  disabledAt: Date | null;
  /** The first failed attempt since the last success, while attempts are failing. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A new endpoint as stored: `secret` is sealed for `id`. */
export interface NewStoredEndpoint {
  id: string;
  accountId: string;
  kind?: WebhookEndpointKind;
  url: string;
  events: WebhookEventType[];
  secret: string;
}

export interface StoredChanges {
  url?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
}

export interface DeliveryItem {
  id: string;
  effectId: string;
  type: string;
  status: string;
  createdAt: Date;
  nextAttemptAt: Date | null;
  finishedAt: Date | null;
  attempts: { at: Date; succeeded: boolean; responseStatus: number | null; error: string | null; durationMs: number }[];
}

export interface EndpointStore {
  list(accountId: string): Promise<EndpointView[]>;
  /** The account's endpoint; null for another account's or none. */
  find(accountId: string, id: string): Promise<EndpointView | null>;
  /** Inserts unless the account already has `max` endpoints; null then. */
  insert(input: NewStoredEndpoint, max: number): Promise<EndpointView | null>;
  /** Enabling resumes the endpoint's pending deliveries, each with a fresh retry window; null when there is no such endpoint. */
  change(accountId: string, id: string, changes: StoredChanges, retryWindowMs: number): Promise<EndpointView | null>;
  /** False when there was no such endpoint. */
  remove(accountId: string, id: string): Promise<boolean>;
  /** The new sealed secret signs from now on; the old one also signs until graceUntil. */
  rotateSecret(accountId: string, id: string, secret: string, graceUntil: Date): Promise<EndpointView | null>;
  /** An endpoint's deliveries, newest first, each with its attempts in order. */
  deliveryPage(endpointId: string, query: { limit: number; after: { at: Date; id: string } | null; status?: string }): Promise<DeliveryItem[]>;
}
