// The shapes of the management API's answers the console reads (docs/openapi.json has them all).
// Only the fields used here are named. Newer records come from their schemas in @glimpse/api
// (types only: nothing of it is bundled).
import type { IntentView, NetworkRecordView, VisitorLocation } from '@glimpse/api';

export interface List<T> {
  items: T[];
}
export interface Paged<T> extends List<T> {
  nextCursor: string | null;
}

export interface Credential {
  id: string;
  prefix: string;
  scopes?: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
/** A token or key as created: its secret, once. */
export interface CreatedCredential extends Credential {
  token?: string;
  key?: string;
}

export interface Playbook {
  id: string;
  name: string;
  triggers: string[];
  exits: string[];
  reenrollment: string;
  updatedAt: string;
}

export interface Catalog extends Paged<{ name: string }> {
  full?: boolean;
  maxNames?: number;
  refused?: { events: number; lastName: string } | null;
}

export interface DryRun {
  event: string;
  email: string;
  catalog?: string;
  playbooks: { id: string; name: string; outcome: string; reason: string }[];
}

export interface Enrollment {
  email: string;
  status: string;
  startedAt: string;
  startedBy: string | null;
  stoppedAt: string | null;
  stoppedBy: string | null;
}

export interface RecentEvent {
  eventId: string;
  event: string;
  email: string;
  receivedAt: string;
  properties?: Record<string, unknown> | null;
}

export interface ReceiptPlaybook {
  id: string;
  /** null: deleted since. */
  name: string | null;
}
export interface Receipt {
  eventId: string;
  event: string | null;
  appliedAt: string | null;
  personErased?: boolean;
  started: ReceiptPlaybook[];
  stopped: ReceiptPlaybook[];
  unchanged: (ReceiptPlaybook & { reason: string })[];
}

export interface Suppression {
  email: string;
  createdAt: string;
}
export interface Suppressed {
  email: string;
  stoppedEnrollments: number;
}
export interface Erasure {
  stoppedEnrollments: number;
  hashedEnrollments: number;
  hashedEffects: number;
  deletedSuppressions: number;
  deletedRawEvents: number;
  hashedDeliveries: number;
  deletedVisitors?: number;
  deletedVisitorLinks?: number;
  deletedImportedVisitors?: number;
  hashedImportedVisitors?: number;
}

export interface UsageDay {
  day: string;
  identityMatches: number;
  enrichedRecords: number;
}
export interface Usage extends List<UsageDay> {
  totals: { identityMatches: number; enrichedRecords: number };
}

export interface Webhook {
  id: string;
  /** webhook or slack (a Slack endpoint's url is answered masked). */
  kind?: 'webhook' | 'slack';
  url: string;
  events: string[];
  enabled: boolean;
  failingSince?: string | null;
  disabledReason?: string | null;
  disabledAt?: string | null;
}
export interface CreatedWebhook extends Webhook {
  /** Absent for a Slack endpoint: Slack messages are not signed. */
  secret?: string;
}
export interface Attempt {
  at: string;
  succeeded: boolean;
  responseStatus?: number | null;
  error?: string | null;
  durationMs: number;
}
export interface Delivery {
  type: string;
  status: string;
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}

export interface Site {
  id: string;
  name: string;
  key: string;
  origins: string[];
  track_events: string[];
  capture_forms?: boolean;
  consent?: string;
  honor_gpc?: boolean;
  query_keys?: string[];
  identity_verification?: string;
  identity_secret_set?: boolean;
  /** Only in the creation answer: shown once. */
  identity_secret?: string;
  createdAt: string;
  snippet: { html: string; integrity: string };
}
export interface SiteStats {
  page_views: number;
  visitors: number;
  identified_visitors: number;
  bots: number;
}
export interface TrafficHour {
  hour: string;
  pageViews: number;
  visitors: number;
  bots: number;
}
export interface Traffic {
  firstPageViewAt: string | null;
  hours: TrafficHour[];
}

export interface Identification {
  method: string;
  at?: string | null;
  confidence?: number | null;
  /** true: verified (the site's identity hash, an email link, an import); false: a claim. */
  verified?: boolean | null;
}
/** The company from the visitor's IP: a name (older answers) or its details. */
export type Company = string | { name: string; domain?: string | null; at?: string | null };
export interface VisitorRow {
  id: string;
  email?: string | null;
  company?: Company | null;
  pageViews: number;
  sessions: number;
  engagedSeconds: number;
  lastPage?: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  identifiedBy?: Identification | null;
  network?: NetworkRecordView | null;
  location?: VisitorLocation | null;
  /** The company it counts for: GET /account/companies/{key}. */
  companyKey?: string | null;
  intent?: IntentView;
}
export interface IdentityLink extends Identification {
  email: string;
  sourcePath?: string | null;
}
export interface VisitorSession {
  number: number;
  startedAt: string;
  lastAt: string;
  pageViews: number;
  landingPath?: string | null;
  referrer?: string | null;
  utmCampaign?: string | null;
}
export interface Visitor {
  id?: string;
  email?: string | null;
  company?: Company | null;
  consent?: string | { state: string; at: string | null } | null;
  cookieless?: boolean;
  pageViews?: number;
  engagedSeconds?: number;
  firstSeen?: string | null;
  lastSeen?: string | null;
  identifiedBy?: Identification | null;
  network?: NetworkRecordView | null;
  location?: VisitorLocation | null;
  companyKey?: string | null;
  identityHistory?: IdentityLink[];
  sessionList?: VisitorSession[];
  pages?: { path: string; title?: string | null; at: string }[];
  intent?: IntentView;
}

export interface PageRule {
  id: string;
  pattern: string;
  /** null: the rule only scores. */
  event: string | null;
  weight?: number;
  createdAt?: string;
  created_at?: string;
}

export interface LinkToken {
  token: string;
  id: string;
  expiresAt: string;
}
