// Identification in the management API: email-link tokens (POST /account/link-tokens) and page
// rules (/account/page-rules, answered by the visitors service), with the confidence each method
// of identification carries.
import { z } from 'zod';
import { visitorSummarySchema } from './sites.js';
import { emailSchema, EVENT_NAME_PATTERN } from '@glimpse/validation';

/** Days a link token identifies: 30 by default, at most 90 (a campaign's life; a token cannot be called back from a sent email, only revoked). */
export const LINK_TOKEN_TTL_DAYS = { min: 1, max: 90, default: 30 } as const;
export const MAX_PAGE_RULES_PER_ACCOUNT = 100;
export const PAGE_RULE_PATTERN_MAX = 256;
export const PAGE_RULE_WEIGHT_MAX = 100;

/** A page rule's (or a segment's page) glob: starts with '/', 1 to PAGE_RULE_PATTERN_MAX characters, no control characters. */
export function validPageRulePattern(pattern: string): boolean {
  if (pattern.length < 1 || pattern.length > PAGE_RULE_PATTERN_MAX || !pattern.startsWith('/')) return false;
  for (let i = 0; i < pattern.length; i++) if (pattern.charCodeAt(i) < 0x20 || pattern.charCodeAt(i) === 0x7f) return false;
  return true;
}

const pageRuleWeight = z
  .number({ error: `weight must be a number from 0 to ${PAGE_RULE_WEIGHT_MAX}` })
  .min(0, `weight must be a number from 0 to ${PAGE_RULE_WEIGHT_MAX}`)
  .max(PAGE_RULE_WEIGHT_MAX, `weight must be a number from 0 to ${PAGE_RULE_WEIGHT_MAX}`)
  .meta({ description: "intent points of a matching page view (any visitor's), once per rule per session (default 0); no add-on needed" });

const at = z.iso.datetime();

export const linkTokenInputSchema = z
  .strictObject(
    {
      email: emailSchema({ base: z.string({ error: (i) => (i.input === undefined ? 'email is required' : 'email must be a string') }) }),
      ttl_days: z
        .int({ error: `ttl_days must be a whole number of days, ${LINK_TOKEN_TTL_DAYS.min} to ${LINK_TOKEN_TTL_DAYS.max}` })
        .min(LINK_TOKEN_TTL_DAYS.min, `ttl_days must be ${LINK_TOKEN_TTL_DAYS.min} to ${LINK_TOKEN_TTL_DAYS.max}`)
        .max(LINK_TOKEN_TTL_DAYS.max, `ttl_days must be ${LINK_TOKEN_TTL_DAYS.min} to ${LINK_TOKEN_TTL_DAYS.max}`)
        .optional()
        .meta({ description: `how long the token identifies, in days (default ${LINK_TOKEN_TTL_DAYS.default})` }),
    },
    { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {email, ttl_days}` : 'body must be a JSON object') },
  )
  .meta({ id: 'LinkTokenInput', description: 'The person a campaign link identifies; the email is trimmed and lower-cased.' });
export type LinkTokenInput = z.infer<typeof linkTokenInputSchema>;

export const linkTokenCreatedSchema = z
  .object({
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .meta({
        description:
          'opaque and signed (AES-256-GCM): bound to this account, expiring, never the email in clear. Add it to a link to the site as ?gl=<token>: the tag sends it, removes it from the address bar, and the visitor is identified with method email_link',
      }),
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{22}$/)
      .meta({ description: "the token's id (in the token too): DELETE /account/link-tokens/{id} revokes it" }),
    expiresAt: at,
  })
  .meta({ id: 'LinkToken' });

export const pageRuleInputSchema = z
  .strictObject(
    {
      pattern: z
        .string({ error: 'pattern is required' })
        .min(1, `pattern must be 1 to ${PAGE_RULE_PATTERN_MAX} characters`)
        .max(PAGE_RULE_PATTERN_MAX, `pattern must be 1 to ${PAGE_RULE_PATTERN_MAX} characters`)
        .startsWith('/', 'pattern must be a path starting with /')
        .meta({ description: 'a path glob: * matches any characters (e.g. /pricing*)' }),
      event: z
        .string({ error: 'event must be a string' })
        .regex(EVENT_NAME_PATTERN, 'event must be 1 to 64 characters: letters, digits, _ . : -')
        .nullable()
        .optional()
        .meta({
          description:
            "the event an identified visitor's matching page view becomes for the person's email (once per rule per session), like POST /events; needs the workflows add-on. Leave it out for a rule that only scores",
        }),
      weight: pageRuleWeight.optional(),
    },
    {
      error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {pattern, event, weight}` : 'body must be a JSON object'),
    },
  )
  .refine((r) => (r.event ?? null) !== null || (r.weight ?? 0) > 0, 'a page rule needs an event or a weight above 0')
  .meta({ id: 'PageRuleInput' });

export const pageRuleUpdateSchema = z
  .strictObject(
    { weight: pageRuleWeight },
    { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {weight}` : 'body must be a JSON object') },
  )
  .meta({ id: 'PageRuleUpdate', description: "a page rule's new weight (the account is re-scored within minutes)" });

export const pageRuleSchema = z
  .object({
    id: z.uuid(),
    pattern: z.string(),
    event: z.string().nullable().meta({ description: 'null: the rule only scores' }),
    weight: z.number().min(0).max(PAGE_RULE_WEIGHT_MAX),
    createdAt: at,
  })
  .meta({
    id: 'PageRule',
    description: `a page view that becomes an event, intent points, or both; at most ${MAX_PAGE_RULES_PER_ACCOUNT} per account`,
  });

const identityLinkSchema = z
  .object({
    email: z.string(),
    method: z.string().meta({ description: 'identify, email_link or form' }),
    confidence: z.number().min(0).max(1),
    verified: z.boolean().meta({ description: 'a verified identify (valid hash) or an email link; false: a claim (an unverified identify, a captured form)' }),
    at,
    sourceId: z.string().meta({ description: 'the id of the tag event that made the link' }),
    sourcePath: z.string().nullable().optional().meta({ description: 'the page the visitor was on' }),
  })
  .meta({ id: 'IdentityLink' });

const visitorSessionSchema = z
  .object({
    number: z.int().min(1).meta({ description: "the session's number for the visitor, from 1" }),
    siteId: z.uuid(),
    startedAt: at,
    lastAt: at,
    pageViews: z.int().min(0),
    landingPath: z.string().nullable().meta({ description: 'the path of its first page view (no query)' }),
    referrer: z.string().nullable(),
    utmCampaign: z.string().nullable(),
  })
  .meta({ id: 'VisitorSession', description: 'a visit: a new one after 30 idle minutes or a new UTM campaign' });

export const visitorRecordSchema = visitorSummarySchema
  .omit({ company: true })
  .extend({
    firstReferrer: z.string().nullable(),
    firstUtm: z.record(z.string(), z.string()).nullable(),
    cookieless: z.boolean().meta({ description: 'counted under a daily cookieless id (no consent); never identified' }),
    pages: z.array(z.object({ path: z.string(), title: z.string().nullable().optional(), at })).meta({ description: 'the last 20 pages, newest first' }),
    sessionList: z.array(visitorSessionSchema).meta({ description: 'the sessions, newest first' }),
    identityHistory: z.array(identityLinkSchema).meta({ description: 'every identity link, newest first (the newest is the current one)' }),
    consent: z.object({ state: z.enum(['implied', 'pending', 'granted', 'denied']), at: at.nullable() }),
    company: z
      .object({ name: z.string(), domain: z.string().nullable(), at: at.nullable() })
      .nullable()
      .meta({ description: 'the company behind the address (ip_company, confidence 0.5), while no person is known' }),
  })
  .meta({
    id: 'VisitorRecord',
    description: "a visitor's full record: its pages, sessions, identity history with the page view that made each match, consent and company",
  });

export type LinkTokenCreated = z.infer<typeof linkTokenCreatedSchema>;
export type PageRule = z.infer<typeof pageRuleSchema>;
export type VisitorRecord = z.infer<typeof visitorRecordSchema>;
