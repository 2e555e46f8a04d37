// The rows and messages the plan of a chunk of collected messages reads and writes (plan-collected.ts
// computes them; merge-visitors.ts folds one visitor's state into another's; the data layer stores them).
import type { Collected, Utm } from '@glimpse/messaging';
import type { Company, Location, Network, NetworkInfo } from './network-lookup.js';
import type { IntentContribution, IntentSettings } from './intent-score.js';

export type { Company, Location, Network, NetworkInfo } from './network-lookup.js';

export interface PageEntry {
  path: string;
  title?: string;
  at: string;
}

/** A visitor's profile row, as loaded before the chunk and as written after it. Times are ISO 8601. */
export interface VisitorState {
  accountId: string;
  visitorId: string;
  siteId: string;
  firstSeen: string;
  lastSeen: string;
  pageViews: number;
  sessions: number;
  engagedSeconds: number;
  /** Newest first, at most LAST_PAGES. */
  lastPages: PageEntry[];
  firstReferrer: string | null;
  firstUtm: Utm | null;
  sessionStartedAt: string | null;
  sessionLastAt: string | null;
  sessionCampaign: string | null;
  email: string | null;
  identifiedMethod: string | null;
  identifiedAt: string | null;
  identifiedConfidence: number | null;
  /** Whether the current link was verified; null: not identified, or identified before verification existed. */
  identifiedVerified: boolean | null;
  consent: ConsentState;
  consentAt: string | null;
  /** Counted under a daily-salted hash: never identified. */
  cookieless: boolean;
  /** The company a business, education or government network named (kept while a person is unknown). */
  company: Company | null;
  companyAt: string | null;
  /** The network of the last page view a dataset held, whatever its type. */
  network: Network | null;
  /** Where the last located page view came from. */
  location: Location | null;
  /** The company the visitor counts for (company-key.ts): derived, written for the companies view's index. */
  companyKey: string | null;
  /** The intent score (intent-score.ts): the weighted sum as of intentAt (the newest message applied), its rank, and what it is made of. */
  intentRaw: number;
  intentAt: string | null;
  intentRank: number | null;
  intentContributions: IntentContribution[];
}

export type ConsentState = 'implied' | 'pending' | 'granted' | 'denied';
export type PersonMethod = 'identify' | 'form' | 'email_link';

export interface PageRule {
  id: string;
  accountId: string;
  pattern: string;
  /** The event a matching page view of an identified visitor becomes (workflows add-on); null: the rule only scores. */
  event: string | null;
  /** Intent points of a matching page view, once per session (0: none). */
  weight?: number;
}

/** A page rule fired for a visitor's session (at: the page view's time). */
export interface FiringRow {
  accountId: string;
  visitorId: string;
  sessionNumber: number;
  ruleId: string;
  at: string;
}

/** A NEW identity link, for visitors.identified. */
export interface IdentifiedMessage {
  eventId: string;
  accountId: string;
  siteId: string;
  visitorId: string;
  method: PersonMethod;
  confidence: number;
  verified: boolean;
  email: string;
  at: string;
  /** Published again for a message already collected (a redelivery after a crash before it was sent). */
  redelivered: boolean;
}

/** A cookieless visitor folded into a persistent one on consent: its sessions move after `offset`, its profile goes. */
/** A profile to write: `isNew` when no row existed before the chunk (an insert that must not meet one). */
export interface ProfileWrite extends VisitorState {
  isNew: boolean;
}

/** One session's change: a new session's row, or an open one's extension (page views added, last_at raised). */
export interface SessionWrite {
  accountId: string;
  visitorId: string;
  number: number;
  siteId: string;
  startedAt: string;
  lastAt: string;
  pageViews: number;
  landingPath: string | null;
  referrer: string | null;
  utmCampaign: string | null;
}

export interface IdentityLinkWrite {
  accountId: string;
  visitorId: string;
  siteId: string;
  email: string;
  method: PersonMethod;
  confidence: number;
  verified: boolean;
  at: string;
  sourceId: string;
  sourcePath: string | null;
}

/** Increments of one (site, hour) row. */
export interface SiteHourDelta {
  siteId: string;
  hour: string;
  accountId: string;
  pageViews: number;
  visitors: number;
  bots: number;
}

export interface CollectedId {
  accountId: string;
  visitorId: string;
  id: string;
  at: string;
}

/** A track message of an identified visitor, to forward to events.inbound with the email it had then. */
export interface TrackForward {
  eventId: string;
  accountId: string;
  event: string;
  email: string;
  properties: Record<string, string | number | boolean>;
  receivedAt: string;
  /** Forwarded again for a message already collected (a redelivery after a crash before it was sent). */
  redelivered: boolean;
}

/** The first page view of a company on a site in a window: announced once as company.visited. */
export interface CompanyVisitWrite {
  accountId: string;
  siteId: string;
  company: string;
  windowStart: string;
  visitorId: string;
  at: string;
  /** Seen again in a redelivered message: announced again only if this very visit made the row. */
  redelivered: boolean;
}

export interface CollectedPlan {
  /** Visitors whose identity links are deleted (a consent denial), before the chunk's links are inserted. */
  unlinks: { accountId: string; visitorId: string }[];
  profiles: ProfileWrite[];
  sessions: SessionWrite[];
  links: IdentityLinkWrite[];
  firings: FiringRow[];
  siteHours: SiteHourDelta[];
  collected: CollectedId[];
  /** Tracks and page-rule events, to events.inbound. */
  forwards: TrackForward[];
  identified: IdentifiedMessage[];
  /** Candidate first visits of companies (the store keeps those that are first). */
  companyVisits: CompanyVisitWrite[];
  /** withoutAddon: tracks and matching page views of an account without the workflows add-on (kept as visits, no event). */
  counts: {
    applied: number;
    duplicates: number;
    bots: number;
    tracksUnidentified: number;
    identifiesDropped: number;
    rulesFired: number;
    withoutAddon: number;
  };
}

export interface PlanCollectedInput {
  /** The chunk's valid messages, in offset order. */
  messages: readonly Collected[];
  /** Profiles before the chunk, by profileKey; a visitor never seen is missing. */
  visitors: ReadonlyMap<string, VisitorState>;
  /** The chunk's ids already collected before it, by collectedKey. */
  collected: ReadonlySet<string>;
  /** The chunk's accounts' page rules. */
  rules?: readonly PageRule[];
  /** Firings of the chunk's visitors in their current sessions, and any at or after the chunk's first time. */
  firings?: readonly FiringRow[];
  /** What each page view address of the chunk says (network, company, location), from the replica's IP data. */
  networks?: ReadonlyMap<string, NetworkInfo>;
  /** How long a company.visited window lasts (ms; windows start at multiples of it from the epoch). Default a day. */
  companyWindowMs?: number;
  /** Erasures of the chunk's identify emails: erasedAt by erasureKey(accountId, email). */
  erasures?: ReadonlyMap<string, string>;
  /** Identity links that exist already among the chunk's identify messages, by linkKey. */
  links?: ReadonlySet<string>;
  /** The chunk's accounts' intent settings, by account id (the defaults for one missing). */
  intent?: ReadonlyMap<string, IntentSettings>;
}
