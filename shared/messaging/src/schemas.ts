// The message schemas on the topics: what producers write and consumers validate.
import { createHmac, hkdfSync } from 'node:crypto';
import { z } from 'zod';
import { COLLECTED_ID_PATTERN, ENGAGED_SECONDS_MAX, EVENT_NAME_PATTERN, VISITOR_ID_PATTERN } from '@glimpse/validation';

// The event-name and site-tag id rules live in @glimpse/validation (the public API applies them
// too); exported here as well for the importers of @glimpse/messaging.
export { COLLECTED_ID_PATTERN, ENGAGED_SECONDS_MAX, EVENT_NAME_PATTERN, VISITOR_ID_PATTERN };

export const propertyValue = z.union([z.string(), z.number().finite(), z.boolean()]);

export const inboundEventSchema = z.object({
  eventId: z.uuid(),
  accountId: z.uuid(),
  event: z.string().regex(EVENT_NAME_PATTERN),
  email: z.string().min(3).max(254),
  properties: z.record(z.string(), propertyValue),
  receivedAt: z.iso.datetime(),
});
export type InboundEvent = z.infer<typeof inboundEventSchema>;

/** Effects carry no event properties: only who, which playbook, and what happened. */
export const playbookEffectSchema = z.object({
  effectId: z.uuid(),
  eventId: z.uuid(),
  accountId: z.uuid(),
  playbookId: z.uuid(),
  email: z.string(),
  action: z.enum(['started', 'stopped']),
  at: z.iso.datetime(),
  /**
   * Absent for an event's effect. A stop made by a suppression or an erasure names its cause; its
   * eventId is then the id of that operation, and an erasure's email is the keyed stand-in it left
   * (createErasedEmail).
   */
  cause: z.enum(['suppressed', 'erased']).optional(),
});
export type PlaybookEffectMessage = z.infer<typeof playbookEffectSchema>;

/** What an erased email becomes: `erased:` and 64 hex digits. It never matches an email (no @). */
export const ERASED_EMAIL_PATTERN = /^erased:[0-9a-f]{64}$/;

/** How a stored row is recognised as an erased person's (SQL `LIKE`). */
export const ERASED_EMAIL_LIKE = 'erased:%';

/**
 * The stand-in for an erased person's email, the same in every service that keeps a trace of the
 * person (enrollments, effects, webhook deliveries), so per-person counts hold and erasing twice
 * gives the same value. It is keyed: HMAC-SHA256 of the email under the account's own key, which
 * is derived with HKDF-SHA256 from the server's erasure secret and the account id. Without the
 * secret (a reader of the database or of a backup, a webhook receiver, anyone who knows the account
 * id) a guessed email cannot be confirmed, and one account's key says nothing of another's.
 * Returns the function; account keys are derived once and kept (a bounded cache).
 */
export function createErasedEmail(secret: string): (accountId: string, email: string) => string {
  if (secret.length < 32) throw new Error('the erasure secret must be at least 32 characters');
  const ikm = Buffer.from(secret, 'utf8');
  const keys = new Map<string, Buffer>();
  const keyOf = (accountId: string): Buffer => {
    const id = accountId.toLowerCase();
    let key = keys.get(id);
    if (key === undefined) {
      if (keys.size >= 10_000) keys.clear();
      key = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), `glimpse erasure v1 ${id}`, 32));
      keys.set(id, key);
    }
    return key;
  };
  return (accountId, email) => `erased:${createHmac('sha256', keyOf(accountId)).update(email, 'utf8').digest('hex')}`;
}

/**
 * An account's lifecycle on the `accounts` topic, keyed by the account id (compacted: the newest
 * event of each account stays). The identity part of the gateway owns accounts and publishes these
 * from its outbox; the other services keep or drop their own data by them. No name, nothing personal.
 */
export const accountEventSchema = z.object({
  type: z.enum(['account.created', 'account.deleted']),
  accountId: z.uuid(),
  at: z.iso.datetime(),
});
export type AccountEventMessage = z.infer<typeof accountEventSchema>;

/**
 * What the site tag sends, as the gateway produced it to `visitors.collected` (keyed site:visitor):
 * raw, gone within 24 h like raw events. `id` is the tag's own id of the message, the same on each
 * retry, so the visitors service counts every message once. The gateway adds who (account, site,
 * visitor), when (`receivedAt`, its own clock) and, for page views, the request's user agent and
 * address (used within the raw window only: the aggregates never keep either).
 */
const collectedBase = {
  id: z.string().regex(COLLECTED_ID_PATTERN),
  accountId: z.uuid(),
  siteId: z.uuid(),
  visitorId: z.string().regex(VISITOR_ID_PATTERN),
  receivedAt: z.iso.datetime(),
  /**
   * false: the site's account had no workflows add-on when the gateway collected the message, so it
   * fires no page rule and its track goes to no playbook. Absent: it had (and messages from before).
   */
  workflows: z.literal(false).optional(),
};

export const utmSchema = z.object({
  source: z.string().max(256).optional(),
  medium: z.string().max(256).optional(),
  campaign: z.string().max(256).optional(),
  term: z.string().max(256).optional(),
  content: z.string().max(256).optional(),
});
export type Utm = z.infer<typeof utmSchema>;

export const collectedMessageSchema = z.discriminatedUnion('type', [
  z.object({
    ...collectedBase,
    type: z.literal('pageview'),
    /** The path without query or fragment (what the aggregates keep). */
    path: z.string().min(1).max(2048),
    /** The full address, query included (raw: never kept past 24 h). */
    url: z.string().max(4096).optional(),
    title: z.string().max(512).optional(),
    referrer: z.string().max(2048).optional(),
    utm: utmSchema.optional(),
    userAgent: z.string().max(1024).optional(),
    ip: z.string().max(64).optional(),
    /** Counted under a daily-salted hash (consent required and not given): never identified. */
    cookieless: z.boolean().optional(),
  }),
  z.object({
    ...collectedBase,
    type: z.literal('engagement'),
    /** The id of the page view the time was spent on. */
    pageViewId: z.string().regex(COLLECTED_ID_PATTERN),
    seconds: z.number().int().min(0).max(ENGAGED_SECONDS_MAX),
  }),
  z.object({
    ...collectedBase,
    type: z.literal('identify'),
    email: z.string().min(3).max(254),
    path: z.string().max(2048).optional(),
    /** How the visitor told us: an identify call (the default), a captured form, or a signed email link. */
    method: z.enum(['identify', 'form', 'email_link']).optional(),
    /**
     * true: the gateway checked it (an identify whose hash is the HMAC of the site's identity secret,
     * or an email link's token); false or absent (messages from before): a claim.
     */
    verified: z.boolean().optional(),
  }),
  z.object({
    ...collectedBase,
    type: z.literal('consent'),
    state: z.enum(['granted', 'denied']),
    /** From before grants carried their views: ignored (a cookieless day is shared by everyone behind one address and browser). */
    cookielessId: z.string().regex(VISITOR_ID_PATTERN).optional(),
    /** On a grant: the page views this browser sent while consent was pending, credited to the new visitor (path without query). */
    views: z
      .array(z.object({ id: z.string().regex(COLLECTED_ID_PATTERN), path: z.string().min(1).max(2048), at: z.iso.datetime() }))
      .max(20)
      .optional(),
  }),
  z.object({
    ...collectedBase,
    type: z.literal('track'),
    event: z.string().regex(EVENT_NAME_PATTERN),
    properties: z.record(z.string(), propertyValue),
  }),
]);
export type CollectedMessage = z.infer<typeof collectedMessageSchema>;

/**
 * A page view from a bot's user agent, counted per site and hour and never a visitor: no visitor
 * id, keyed by the site. `reason` is the part of the user agent the bot list matched.
 */
export const collectedBotSchema = z.object({
  type: z.literal('bot'),
  id: z.string().regex(COLLECTED_ID_PATTERN),
  accountId: z.uuid(),
  siteId: z.uuid(),
  receivedAt: z.iso.datetime(),
  reason: z.string().max(128),
});
export type CollectedBot = z.infer<typeof collectedBotSchema>;

/** Anything on `visitors.collected`. */
export const collectedSchema = z.union([collectedMessageSchema, collectedBotSchema]);
export type Collected = z.infer<typeof collectedSchema>;

/**
 * Identification methods and how sure each is (documented in the API): identify here is a verified
 * one (its hash checked); an unverified identify is a claim (CLAIMED_IDENTIFY_CONFIDENCE), and so is
 * a captured form, whose email anyone may type.
 */
export const IDENTIFICATION_CONFIDENCE = { identify: 1, email_link: 1, form: 0.6, ip_company: 0.5, import: 1 } as const;
export type IdentificationMethod = keyof typeof IDENTIFICATION_CONFIDENCE;
/** An identify without a valid hash: the site's page said so, but anyone with the site key can say it. */
export const CLAIMED_IDENTIFY_CONFIDENCE = 0.7;

/** Whether a collected identify counts as verified: an email link always (its token is signed), an identify when the gateway checked its hash, a form never. */
export function identifyVerified(m: { method?: 'identify' | 'form' | 'email_link' | undefined; verified?: boolean | undefined }): boolean {
  const method = m.method ?? 'identify';
  return method === 'email_link' || (method === 'identify' && m.verified === true);
}

/** How sure a person identification is, by method and whether it was verified. */
export function identificationConfidence(method: IdentificationMethod, verified: boolean): number {
  return method === 'identify' && !verified ? CLAIMED_IDENTIFY_CONFIDENCE : IDENTIFICATION_CONFIDENCE[method];
}

/**
 * A visitor identified (a new link to an email), on `visitors.identified` keyed accountId:visitorId,
 * for the webhooks service's `visitor.identified`. `eventId` is deterministic per link.
 */
export const visitorIdentifiedSchema = z.object({
  eventId: z.uuid(),
  accountId: z.uuid(),
  siteId: z.uuid(),
  visitorId: z.string().regex(VISITOR_ID_PATTERN),
  method: z.enum(['identify', 'form', 'email_link']),
  confidence: z.number().min(0).max(1),
  /** A verified identification (see identifyVerified); absent in messages from before: false. */
  verified: z.boolean().optional(),
  email: z.string().min(3).max(254),
  at: z.iso.datetime(),
});
export type VisitorIdentifiedMessage = z.infer<typeof visitorIdentifiedSchema>;

/**
 * A named company's first visit to a site in a window (a UTC day by default), on `visitors.companies`
 * keyed accountId:siteId:company, for the webhooks service's `company.visited` (which adds the
 * company's firmographics). `eventId` is deterministic per company, site and window. `company` is
 * the key the companies view uses: the domain, or the name lower-cased when no domain is known.
 */
export const companyVisitedSchema = z.object({
  eventId: z.uuid(),
  accountId: z.uuid(),
  siteId: z.uuid(),
  company: z.string().min(1).max(300),
  name: z.string().nullable(),
  domain: z.string().nullable(),
  visitorId: z.string().regex(VISITOR_ID_PATTERN),
  windowStart: z.iso.datetime(),
  at: z.iso.datetime(),
  network: z.object({ name: z.string().nullable(), type: z.string(), asn: z.number().int().nullable() }).nullable(),
  location: z
    .object({ country: z.string().nullable(), region: z.string().nullable(), city: z.string().nullable(), time_zone: z.string().nullable() })
    .nullable(),
});
export type CompanyVisitedMessage = z.infer<typeof companyVisitedSchema>;

/** One reason of an intent score: its points now (decayed), and when it last happened. */
export const intentReasonSchema = z.object({ reason: z.string().min(1).max(200), points: z.number().min(0).max(100), at: z.iso.datetime() });

/** A segment's member as an alert shows it: a visitor (its email when identified) or a company, its score and top reasons, where it is and what it read last. */
export const segmentMemberSchema = z.object({
  kind: z.enum(['visitor', 'company']),
  /** The visitor id, or the company key (its domain, else its name). */
  key: z.string().min(1).max(300),
  /** The company's name, or the visitor's company's. */
  name: z.string().max(300).nullable(),
  domain: z.string().max(300).nullable(),
  /** The identified visitor's email (a visitor member only). */
  email: z.string().max(320).nullable(),
  score: z.number().min(0).max(100),
  reasons: z.array(intentReasonSchema).max(10),
  location: z
    .object({ country: z.string().nullable(), region: z.string().nullable(), city: z.string().nullable(), time_zone: z.string().nullable() })
    .nullable(),
  /** The newest pages first. */
  lastPages: z.array(z.object({ path: z.string().max(2048), title: z.string().max(500).nullable(), at: z.iso.datetime() })).max(5),
  /** The companies' visitors, or 1. */
  visitors: z.number().int().min(0),
});
export type SegmentMemberMessage = z.infer<typeof segmentMemberSchema>;

const segmentRef = {
  accountId: z.uuid(),
  segmentId: z.uuid(),
  segmentName: z.string().min(1).max(200),
  segmentKind: z.enum(['visitors', 'companies']),
};

/** A member entering a segment: once per member and alert window (eventId is a hash of segment, member and window start, the same on any repeat). */
export const segmentEnteredSchema = z.object({
  type: z.literal('segment.entered'),
  eventId: z.uuid(),
  ...segmentRef,
  windowStart: z.iso.datetime(),
  at: z.iso.datetime(),
  member: segmentMemberSchema,
});
export type SegmentEnteredMessage = z.infer<typeof segmentEnteredSchema>;

/** A segment's daily digest, at the account's local hour (eventId is a hash of segment and local day). */
export const segmentDigestSchema = z.object({
  type: z.literal('segment.digest'),
  eventId: z.uuid(),
  ...segmentRef,
  /** The account-local day the digest is of (YYYY-MM-DD). */
  day: z.iso.date(),
  /** Members who entered since the previous digest, and members now. */
  newMembers: z.number().int().min(0),
  members: z.number().int().min(0),
  /** The highest scores now, best first. */
  top: z.array(segmentMemberSchema).max(10),
  at: z.iso.datetime(),
});
export type SegmentDigestMessage = z.infer<typeof segmentDigestSchema>;

/** What visitors.segments carries. */
export const segmentAlertSchema = z.discriminatedUnion('type', [segmentEnteredSchema, segmentDigestSchema]);
export type SegmentAlertMessage = z.infer<typeof segmentAlertSchema>;
