// Sites (the management API's /account/sites) and what the tag sends to POST /collect: the gateway
// validates with these schemas, and the OpenAPI document is generated from them. Origins are
// checked for shape here; the gateway normalises them (domain/site-input.ts).
import { z } from 'zod';
import { networkSchema, orNull, visitorLocationSchema } from './company-views.js';
import { intentSchema } from './intent.js';
import { COLLECTED_ID_PATTERN, ENGAGED_SECONDS_MAX, EVENT_NAME_PATTERN, VISITOR_ID_PATTERN } from '@glimpse/validation';

export const MAX_SITES_PER_ACCOUNT = 50;
export const MAX_SITE_ORIGINS = 20;
export const MAX_TRACK_EVENTS = 100;
export const MAX_COLLECT_EVENTS = 50;
export const COLLECT_BODY_LIMIT_BYTES = 32 * 1024;
/** An email-link token is at most this long (the gateway's link-token.ts issues far shorter). */
export const COLLECT_LINK_TOKEN_MAX = 1024;
export const COLLECT_CONSENT_STATES = ['pending', 'granted', 'denied'] as const;
export const SITE_KEY_PATTERN = /^glp_[A-Za-z0-9_-]{32}$/;
export const MAX_QUERY_KEYS = 20;
/** The page views a grant credits to the visitor it mints (this page load's, sent while consent was pending). */
export const MAX_GRANT_VIEWS = 20;
/** A site's identity secret: `gis_` and 43 url-safe characters (32 random bytes). */
export const IDENTITY_SECRET_PATTERN = /^gis_[A-Za-z0-9_-]{43}$/;
/** An identify's hash: lower-case hex HMAC-SHA256(identity secret, email trimmed and lower-cased). */
export const IDENTITY_HASH_PATTERN = /^[0-9a-f]{64}$/;
export const IDENTITY_VERIFICATION_MODES = ['off', 'optional', 'required'] as const;
export type IdentityVerificationMode = (typeof IDENTITY_VERIFICATION_MODES)[number];

const name = z
  .string({ error: (i) => (i.input === undefined ? 'name is required' : 'name must be a string') })
  .trim()
  .min(1, 'name must be 1 to 100 characters')
  .max(100, 'name must be 1 to 100 characters');
const origins = z
  .array(z.string({ error: 'each origin must be a string' }).max(300, 'an origin is at most 300 characters'), {
    error: (i) => (i.input === undefined ? 'origins is required' : 'origins must be an array of origins'),
  })
  .min(1, 'origins must hold at least one origin')
  .max(MAX_SITE_ORIGINS, `a site has at most ${MAX_SITE_ORIGINS} origins`)
  .meta({ description: 'scheme://host[:port] (http or https, no path); lower-cased, the default port dropped' });
const trackEvents = z
  .array(
    z
      .string({ error: 'track_events must list event names as strings' })
      .regex(EVENT_NAME_PATTERN, 'each track event must be 1 to 64 characters: letters, digits, _ . : -'),
    {
      error: 'track_events must be an array of event names',
    },
  )
  .max(MAX_TRACK_EVENTS, `a site allows at most ${MAX_TRACK_EVENTS} track events`)
  .meta({ description: "the names the site's browsers may send with glimpse('track', …); others are dropped (default: none)" });

export const SITE_CONSENT_MODES = ['implied', 'required'] as const;
export type SiteConsentMode = (typeof SITE_CONSENT_MODES)[number];
/** A site's identification settings when not given: what the snippet leaves out. */
export const SITE_SETTING_DEFAULTS = { capture_forms: false, consent: 'implied', honor_gpc: true } as const;

const captureForms = z.boolean({ error: 'capture_forms must be true or false' }).meta({
  description:
    'the tag sends the email of submitted forms (never a password field, never inside data-glimpse-ignore); identified with method form (default false)',
});
const consent = z.enum(SITE_CONSENT_MODES, { error: 'consent must be "implied" or "required"' }).meta({
  description:
    "implied (default): a persistent visitor id at once; required: cookieless (a daily-salted hash of site, IP and user agent; no cookie, no storage, nothing identified) until glimpse('consent', 'granted')",
});
const honorGpc = z
  .boolean({ error: 'honor_gpc must be true or false' })
  .meta({ description: "a browser's Global Privacy Control signal keeps its visitor cookieless and unidentifiable, like a denial (default true)" });

const identityVerification = z.enum(IDENTITY_VERIFICATION_MODES, { error: 'identity_verification must be "off", "optional" or "required"' }).meta({
  description:
    "whether an identify must carry hash = HMAC-SHA256(identity secret, email) computed by the site's server: off (default; every identify is a claim), optional (a valid hash makes it verified, confidence 1; without one it is a claim, 0.7), required (an identify without a valid hash is dropped)",
});

const queryKeys = z
  .array(
    z
      .string({ error: 'each query key must be a string' })
      .regex(/^[A-Za-z0-9_.[\]-]{1,64}$/, 'each query key must be 1 to 64 characters: letters, digits, _ . - [ ]'),
    {
      error: 'query_keys must be an array of query parameter names',
    },
  )
  .max(MAX_QUERY_KEYS, `a site allows at most ${MAX_QUERY_KEYS} query keys`)
  .meta({
    description:
      "the query parameters a page view's URL keeps besides the utm_ ones (default: none); the tag and the gateway drop every other parameter and the fragment",
  });

const newVisitorsPerDay = z
  .int({ error: 'new_visitors_per_day must be a whole number from 1 to 10000000, or null' })
  .min(1, 'new_visitors_per_day must be a whole number from 1 to 10000000, or null')
  .max(10_000_000, 'new_visitors_per_day must be a whole number from 1 to 10000000, or null')
  .nullable()
  .meta({
    description:
      "the new visitor ids the site may mint per UTC day; past it a new browser's views are counted cookieless (no id, no cookie) and the refusal is counted. null (default): the service's default (100,000)",
  });

const siteObjectError = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys'
    ? `unknown field(s): ${(i.keys ?? []).join(', ')}; a site has name, origins, track_events, capture_forms, consent, honor_gpc, query_keys, identity_verification and new_visitors_per_day`
    : 'body must be a JSON object';

/** The settings a site is made with or changed to, each optional (name and origins are apart: a new site needs them). */
const siteSettings = {
  track_events: trackEvents.optional(),
  capture_forms: captureForms.optional(),
  consent: consent.optional(),
  honor_gpc: honorGpc.optional(),
  query_keys: queryKeys.optional(),
  identity_verification: identityVerification.optional(),
  new_visitors_per_day: newVisitorsPerDay.optional(),
};

export const siteCreateSchema = z.strictObject({ name, origins, ...siteSettings }, { error: siteObjectError }).meta({ id: 'SiteInput' });
export const siteUpdateSchema = z
  .strictObject({ name: name.optional(), origins: origins.optional(), ...siteSettings }, { error: siteObjectError })
  .meta({ id: 'SiteChanges', description: 'any of the fields; a list replaces the old one' });
export type SiteCreateInput = z.infer<typeof siteCreateSchema>;
export type SiteUpdateInput = z.infer<typeof siteUpdateSchema>;

const at = z.iso.datetime();

export const siteSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key: z.string().regex(SITE_KEY_PATTERN).meta({ description: 'the publishable site key: it can only collect, and only from the origins' }),
    origins: z.array(z.string()),
    track_events: z.array(z.string()),
    capture_forms: z.boolean(),
    consent: z.enum(SITE_CONSENT_MODES),
    honor_gpc: z.boolean(),
    query_keys: z.array(z.string()),
    identity_verification: z.enum(IDENTITY_VERIFICATION_MODES),
    new_visitors_per_day: z.int().nullable(),
    identity_secret_set: z
      .boolean()
      .meta({ description: 'whether the site has an identity secret (a site from before identity secrets gets one at its first rotation)' }),
    createdAt: at,
    updatedAt: at,
    snippet: z
      .object({
        html: z.string().meta({ description: "the tag to put in every page: the site's script /s/{key}.js, which carries the site's settings" }),
        integrity: z
          .string()
          .regex(/^sha384-[A-Za-z0-9+/]+=*$/)
          .meta({
            description:
              'the Subresource Integrity hash of the generic /g.js (the older snippet); the per-site script changes with its settings, so it takes none',
          }),
      })
      .meta({ description: 'the install snippet' }),
  })
  .meta({ id: 'Site' });

const identitySecret = z.string().regex(IDENTITY_SECRET_PATTERN).meta({
  description:
    "the site's identity secret, shown only in this answer: keep it on the site's server, which computes each identify's hash with it (HMAC-SHA256 of the email trimmed and lower-cased, lower-case hex)",
});

export const siteCreatedSchema = siteSchema
  .extend({ identity_secret: identitySecret })
  .meta({ id: 'SiteCreated', description: 'the new site, with its identity secret (shown once)' });

export const identitySecretRotatedSchema = z
  .object({
    identity_secret: identitySecret,
    previous_expires_at: at.nullable().meta({
      description: 'until when the previous secret still verifies (24 hours); null when the site had none (a site from before identity secrets)',
    }),
  })
  .meta({ id: 'IdentitySecretRotated' });

export const siteStatsSchema = z
  .object({
    page_views: z.int().min(0),
    visitors: z.int().min(0),
    identified_visitors: z.int().min(0),
    bots: z.int().min(0).meta({ description: 'page views from bot user agents (never visitors)' }),
  })
  .meta({ id: 'SiteStats', description: 'the last 24 hours' });

export const siteTrafficSchema = z
  .object({
    firstPageViewAt: at.nullable().meta({ description: "when the site's first page view was received; null before" }),
    hours: z
      .array(z.object({ hour: at, pageViews: z.int().min(0), visitors: z.int().min(0), bots: z.int().min(0) }))
      .meta({ description: 'the last 24 hours, oldest first, zero-filled' }),
  })
  .meta({ id: 'SiteTraffic' });

export const identifiedBySchema = z
  .object({
    method: z.string().meta({ description: 'identify, email_link, form, or ip_company (a company from the address, no person)' }),
    at,
    confidence: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: 'a verified identify, email_link and import 1; an unverified identify (a claim) 0.7, form 0.6, ip_company 0.5' }),
    verified: z.boolean().optional().meta({
      description: "true: verified (an identify with the site's valid hash, an email link, an import); false: a claim anyone with the site key could make",
    }),
  })
  .meta({ id: 'IdentifiedBy', description: 'how, when and how surely the visitor was tied to a person' });

export const visitorSummarySchema = z
  .object({
    id: z.string().regex(VISITOR_ID_PATTERN),
    siteId: z.uuid(),
    firstSeen: at,
    lastSeen: at,
    pageViews: z.int().min(0),
    sessions: z.int().min(0),
    engagedSeconds: z.int().min(0),
    lastPage: z.string().nullable(),
    email: z.string().optional(),
    identifiedBy: identifiedBySchema.optional(),
    company: z.string().optional().meta({ description: 'the name of the company behind the address (ip_company), while no person is known' }),
    network: orNull(networkSchema).optional(),
    location: orNull(visitorLocationSchema).optional(),
    companyKey: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "the company the visitor counts for (a work email's domain, else the network's company): GET /account/companies/{key}" }),
    intent: intentSchema.optional().meta({ description: "the visitor's intent score now and its reasons" }),
  })
  .meta({ id: 'VisitorSummary' });

export const VISITOR_SORTS = ['last_seen', 'score'] as const;

// POST /collect: the wire format of the tag. One level of traits and properties, like events.
const propertyValue = z.union([z.string().max(1024), z.number().finite(), z.boolean()], {
  error: 'values must be strings, numbers or booleans (one level deep)',
});
const flat = z.record(z.string().min(1).max(128), propertyValue).refine((o) => Object.keys(o).length <= 50, 'at most 50 properties');
const collectedId = z.string({ error: 'id is required' }).regex(COLLECTED_ID_PATTERN, 'id must be 8 to 64 letters, digits, _ or -');
const utm = z.strictObject({
  source: z.string().max(256).optional(),
  medium: z.string().max(256).optional(),
  campaign: z.string().max(256).optional(),
  term: z.string().max(256).optional(),
  content: z.string().max(256).optional(),
});

export const collectEventSchema = z
  .discriminatedUnion(
    'type',
    [
      z.strictObject({
        type: z.literal('pageview'),
        id: collectedId,
        url: z
          .string()
          .max(4096)
          .optional()
          .meta({ description: "kept as origin, path, the utm_ parameters and the site's query_keys; any other parameter and the fragment are dropped" }),
        path: z.string().min(1).max(2048).startsWith('/', 'path must start with /'),
        title: z.string().max(512).optional(),
        referrer: z.string().max(2048).optional().meta({ description: 'kept as origin and path only' }),
        utm: utm.optional(),
      }),
      z.strictObject({ type: z.literal('engagement'), id: collectedId, pageViewId: collectedId, seconds: z.int().min(0).max(ENGAGED_SECONDS_MAX) }),
      z.strictObject({
        type: z.literal('identify'),
        id: collectedId,
        email: z.string().max(254),
        hash: z.string().max(128).optional().meta({
          description:
            "HMAC-SHA256(the site's identity secret, the email trimmed and lower-cased), lower-case hex (64 characters), computed by the site's server; checked when the site's identity_verification is optional or required (a wrong or malformed hash is not verified)",
        }),
        traits: flat.optional(),
        path: z.string().max(2048).optional(),
        method: z
          .enum(['identify', 'form'])
          .optional()
          .meta({ description: "form: the tag captured a submitted form's email (kept only when the site has capture_forms); default identify" }),
      }),
      z
        .strictObject({
          type: z.literal('link'),
          id: collectedId,
          token: z.string().min(1).max(COLLECT_LINK_TOKEN_MAX).meta({ description: 'the ?gl= token of an email link (POST /account/link-tokens)' }),
          path: z.string().max(2048).optional(),
        })
        .meta({ description: "identifies the visitor with method email_link when the token is intact, this site's account's and not expired (else dropped)" }),
      z
        .strictObject({
          type: z.literal('consent'),
          id: collectedId,
          state: z.enum(['granted', 'denied']),
          views: z
            .array(
              z.strictObject({
                id: collectedId,
                path: z.string().min(1).max(2048).startsWith('/', 'path must start with /'),
                at: z.iso.datetime().meta({ description: "when the tag sent the page view (the browser's clock)" }),
              }),
            )
            .max(MAX_GRANT_VIEWS)
            .optional()
            .meta({
              description: `on a grant: the page views this page load sent while consent was pending (at most ${MAX_GRANT_VIEWS}), credited to the new visitor; the day's cookieless profile keeps them too`,
            }),
        })
        .meta({
          description:
            "granted: the visitor gets its persistent id (and cookie) and the views listed are credited to it (nothing else of the cookieless day: others behind the same address and browser stay apart); denied: the visitor's identity links are deleted and its cookie cleared",
        }),
      z.strictObject({
        type: z.literal('track'),
        id: collectedId,
        event: z.string().regex(EVENT_NAME_PATTERN, 'event must be 1 to 64 characters: letters, digits, _ . : -'),
        properties: flat.optional(),
      }),
    ],
    { error: 'each event needs a type: pageview, engagement, identify, link, consent or track' },
  )
  .meta({ id: 'CollectEvent' });

export const collectRequestSchema = z
  .strictObject(
    {
      site: z.string({ error: 'site is required' }).max(64).meta({ description: 'the site key glp_…' }),
      vid: z.string().nullable().optional().meta({ description: 'the visitor id the tag holds (24 lower-case hex); a malformed one is ignored' }),
      consent: z.enum(COLLECT_CONSENT_STATES).optional().meta({
        description:
          "the visitor's consent as the tag knows it (absent: implied). On a site with consent required, until granted (and always when denied) no cookie is set, page views are counted under a daily-salted hash of site, IP and user agent, and identify, link and track are dropped",
      }),
      gpc: z
        .boolean()
        .optional()
        .meta({ description: "the browser's Global Privacy Control signal; when the site honours it, the visitor is treated as having denied consent" }),
      events: z
        .array(collectEventSchema, { error: (i) => (i.input === undefined ? 'events is required' : 'events must be an array') })
        .min(1, 'events must hold at least one event')
        .max(MAX_COLLECT_EVENTS, `a request holds at most ${MAX_COLLECT_EVENTS} events`),
    },
    {
      error: (i) =>
        i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {site, vid, consent, gpc, events}` : 'body must be a JSON object',
    },
  )
  .meta({ id: 'CollectRequest', description: 'What the tag sends, as text/plain (a CORS simple request) or application/json; at most 32 KB.' });
export type CollectRequest = z.infer<typeof collectRequestSchema>;
export type CollectEvent = z.infer<typeof collectEventSchema>;

export const collectAnswerSchema = z
  .strictObject({
    vid: z.string().regex(VISITOR_ID_PATTERN).nullable().meta({
      description: 'the visitor id (also in the _glv cookie); null for a bot and for a cookieless visitor (consent required and not given, denied, or GPC)',
    }),
    accepted: z.int().min(0).meta({
      description:
        'the events recorded (dropped: track names the site does not allow, invalid emails and link tokens, form captures the site does not take, anything identifying from a cookieless visitor)',
    }),
    bot: z.literal(true).optional(),
  })
  .meta({ id: 'CollectAnswer' });

export type Site = z.infer<typeof siteSchema>;
export type SiteCreated = z.infer<typeof siteCreatedSchema>;
export type SiteStats = z.infer<typeof siteStatsSchema>;
export type SiteTraffic = z.infer<typeof siteTrafficSchema>;
export type IdentifiedBy = z.infer<typeof identifiedBySchema>;
export type VisitorSummary = z.infer<typeof visitorSummarySchema>;
export type IdentitySecretRotated = z.infer<typeof identitySecretRotatedSchema>;
