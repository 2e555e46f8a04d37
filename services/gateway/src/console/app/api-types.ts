// The shapes of the management API's answers the console reads: every record is @glimpse/api's
// (z.infer of the schemas the services answer with and the OpenAPI document is made of), imported
// as types only, so nothing of it is bundled and a field renamed there fails the console's
// typecheck. Only the console's own names and views are declared here.
import type {
  ApiKey,
  ApiKeyCreated,
  CatalogPage,
  DryRun as DryRunRecord,
  Enrollment as EnrollmentRecord,
  Erasure as ErasureRecord,
  EventReceipt,
  EventToken,
  EventTokenCreated,
  IdentifiedBy,
  LinkTokenCreated,
  PageRule as PageRuleRecord,
  Playbook as PlaybookRecord,
  RecentEvent as RecentEventRecord,
  Site as SiteRecord,
  SiteCreated,
  SiteStats as SiteStatsRecord,
  SiteTraffic,
  Suppression as SuppressionRecord,
  SuppressionCreated,
  Usage as UsageRecord,
  VisitorRecord,
  VisitorSummary,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreated,
} from '@glimpse/api';

/** A list answer ({items}) and a page of one ({items, nextCursor}). */
export interface List<T> {
  items: T[];
}
export interface Paged<T> extends List<T> {
  nextCursor: string | null;
}

/** An event token or an API key (only a key has scopes); the Credentials page shows both. */
export type Credential = EventToken | ApiKey;
/** A token or key as created: its secret (token or key), once. */
export type CreatedCredential = (EventTokenCreated | ApiKeyCreated) & Partial<Record<'token' | 'key', string>>;

export type Playbook = PlaybookRecord;
export type Catalog = CatalogPage;
export type DryRun = DryRunRecord;
export type Enrollment = EnrollmentRecord;
export type RecentEvent = RecentEventRecord;

export type Receipt = EventReceipt;
export type ReceiptPlaybook = EventReceipt['started'][number];

export type Suppression = SuppressionRecord;
export type Suppressed = SuppressionCreated;
export type Erasure = ErasureRecord;

export type Usage = UsageRecord;
export type UsageDay = Usage['items'][number];

export type Webhook = WebhookEndpoint;
export type CreatedWebhook = WebhookEndpointCreated;
export type Attempt = WebhookAttempt;
export type Delivery = WebhookDelivery;

/** A site as listed, or as created (with its identity secret, shown once). */
export type Site = SiteRecord & Partial<Pick<SiteCreated, 'identity_secret'>>;
export type SiteStats = SiteStatsRecord;
export type Traffic = SiteTraffic;
export type TrafficHour = SiteTraffic['hours'][number];

export type Identification = IdentifiedBy;
export type VisitorRow = VisitorSummary;
export type IdentityLink = VisitorRecord['identityHistory'][number];
export type Visitor = VisitorRecord;

export type PageRule = PageRuleRecord;
export type LinkToken = LinkTokenCreated;
