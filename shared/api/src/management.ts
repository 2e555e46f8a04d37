// The management API (/account/…, an API key with account:manage): the request bodies the gateway
// and the playbook service validate with, and the answers they give, for the OpenAPI document.
// Answer objects are open (other fields may be added later); every field listed is checked.
import { z } from 'zod';
import { emailSchema, SCOPES } from '@glimpse/validation';

export const apiKeyInputSchema = z
  .strictObject(
    {
      scopes: z
        .array(z.enum(SCOPES, { error: `each scope must be one of ${SCOPES.join(', ')}` }), {
          error: (i) => (i.input === undefined ? 'scopes is required' : 'scopes must be an array'),
        })
        .min(1, { error: 'give the key at least one scope' }),
    },
    { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {scopes: [...]}` : 'body must be a JSON object') },
  )
  .meta({ id: 'ApiKeyInput' });

const eventNames = (field: string) =>
  z.array(z.string({ error: `${field} must list event names as strings` }), { error: `${field} must be an array of event names` });

export const REENROLLMENT_POLICIES = ['once', 'when_inactive', 'restart'] as const;
const reenrollmentSchema = z.enum(REENROLLMENT_POLICIES, { error: `reenrollment must be one of ${REENROLLMENT_POLICIES.join(', ')}` }).meta({
  id: 'ReenrollmentPolicy',
  description:
    'what a trigger does for a person enrolled before: once (never a second enrollment), when_inactive (the default: a new one only when none is active), restart (an active one is stopped and a new one started)',
});

const playbookShape = {
  name: z.string({ error: (i) => (i.input === undefined ? 'name is required' : 'name must be a string') }),
  triggers: eventNames('triggers').optional().meta({ description: 'event names that start an enrollment; each must have been sent once' }),
  exits: eventNames('exits').optional().meta({ description: 'event names that stop an active enrollment' }),
  reenrollment: reenrollmentSchema.optional(),
};

const playbookObjectError = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys'
    ? `unknown field(s): ${(i.keys ?? []).join(', ')}; a playbook has name, triggers, exits and reenrollment`
    : 'body must be a JSON object';

export const playbookCreateSchema = z.strictObject(playbookShape, { error: playbookObjectError }).meta({ id: 'PlaybookInput' });
export const playbookUpdateSchema = z
  .strictObject({ ...playbookShape, name: playbookShape.name.optional() }, { error: playbookObjectError })
  .meta({ id: 'PlaybookChanges', description: 'any of the fields; a list replaces the old one' });

const id = z.uuid();
const at = z.iso.datetime();
const atOrNull = at.nullable();
const cursor = z.string().nullable().meta({ description: 'give it as ?cursor= for the next page; null on the last page' });

export const eventTokenCreatedSchema = z
  .object({ id, prefix: z.string(), token: z.string(), createdAt: at })
  .meta({ id: 'EventTokenCreated', description: 'the token is shown here only' });
export const eventTokenSchema = z.object({ id, prefix: z.string(), createdAt: at, lastUsedAt: atOrNull, revokedAt: atOrNull }).meta({ id: 'EventToken' });
export const apiKeyCreatedSchema = z
  .object({ id, prefix: z.string(), key: z.string(), scopes: z.array(z.enum(SCOPES)), createdAt: at })
  .meta({ id: 'ApiKeyCreated', description: 'the key is shown here only' });
export const apiKeySchema = z
  .object({ id, prefix: z.string(), scopes: z.array(z.enum(SCOPES)), createdAt: at, lastUsedAt: atOrNull, revokedAt: atOrNull })
  .meta({ id: 'ApiKey' });
export const playbookSchema = z
  .object({ id, name: z.string(), triggers: z.array(z.string()), exits: z.array(z.string()), reenrollment: reenrollmentSchema, createdAt: at, updatedAt: at })
  .meta({ id: 'Playbook' });
export const enrollmentSchema = z
  .object({
    id,
    email: z.string(),
    status: z.enum(['active', 'stopped']),
    startedAt: at,
    startedBy: z.string().nullable(),
    stoppedAt: atOrNull,
    stoppedBy: z.string().nullable(),
  })
  .meta({ id: 'Enrollment' });
const namedPlaybook = z.object({ id, name: z.string() });
export const catalogEntrySchema = z
  .object({
    name: z.string(),
    firstSeenAt: at,
    lastSeenAt: at,
    count: z.number().int().min(0),
    triggers: z.array(namedPlaybook),
    exits: z.array(namedPlaybook),
  })
  .meta({ id: 'CatalogEntry' });
/** The catalog, a page of names at a time, with how full it is and what its cap refused. */
export const catalogPageSchema = z
  .object({
    items: z.array(catalogEntrySchema),
    nextCursor: cursor,
    names: z.number().int().min(0).meta({ description: 'event names in the catalog' }),
    maxNames: z.number().int().min(1).meta({ description: "the most names an account's catalog holds" }),
    full: z.boolean().meta({
      description:
        'names = maxNames: an event with a name not in the catalog is still accepted and applied (exits, receipts), but its name is not added, so it cannot become a trigger',
    }),
    refused: z
      .object({
        events: z.number().int().min(0).meta({ description: 'events whose new name was not added because the catalog was full' }),
        lastName: z.string().meta({ description: 'the last such name' }),
        firstAt: at,
        lastAt: at,
      })
      .nullable()
      .meta({ description: 'null while no name was ever refused' }),
  })
  .meta({ id: 'CatalogPage', description: 'the catalog by name, a page at a time' });
export const recentEventSchema = z
  .object({
    eventId: id,
    event: z.string(),
    email: z.string(),
    properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    receivedAt: at,
  })
  .meta({ id: 'RecentEvent' });
const totals = z.object({ identityMatches: z.number().int().min(0), enrichedRecords: z.number().int().min(0) });
const billingPeriod = z
  .object({
    start: z
      .string()
      .regex(/^\d{4}-\d{2}-01$/)
      .meta({ description: 'the first day of the current billing period (the calendar month, UTC)' }),
    personsBilled: z.number().int().min(0).meta({
      description:
        'persons billed this month (their fields disclosed, or enriched by email): each is billed once in the month, whatever the path and however often it is shown',
    }),
  })
  .meta({ id: 'BillingPeriod' });
export const usageSchema = z
  .object({ items: z.array(totals.extend({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) })), totals, period: billingPeriod })
  .meta({ id: 'Usage' });

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: cursor });
/** The recent raw events also say how many raw copies the account's budget dropped. */
export const recentEventsPageSchema = pageOf(recentEventSchema)
  .extend({
    dropped: z.number().int().min(0).meta({
      description:
        'raw copies of this account deleted in the last 24 h, oldest first, to keep it within its raw budget (the events themselves were accepted and applied)',
    }),
  })
  .meta({ id: 'RecentEventsPage' });

/** Why an opted-in playbook was left as it was by an event (receipts and dry runs). */
export const UNCHANGED_REASONS = ['already_active', 'not_active', 'suppressed', 'reenrollment_policy'] as const;
export const dryRunSchema = z
  .object({
    event: z.string(),
    email: z.string(),
    catalog: z.enum(['known', 'new', 'full']).meta({
      description:
        'whether the name is already in the catalog (new: sending it would add it; full: it is not and the catalog is full, so sending it would be applied but not add it)',
    }),
    playbooks: z.array(
      z.object({
        id,
        name: z.string(),
        outcome: z.enum(['start', 'stop', 'restart', 'none']),
        reason: z.enum(['trigger', 'exit', 'exit_and_trigger', ...UNCHANGED_REASONS]).meta({
          description:
            'trigger, exit, exit_and_trigger (or reenrollment_policy for a restart); for none: already_active, not_active, suppressed or reenrollment_policy',
        }),
      }),
    ),
  })
  .meta({ id: 'DryRun', description: 'what the event would do for the person now, per opted-in playbook; nothing was written' });

export const suppressionInputSchema = z
  .strictObject(
    { email: emailSchema({ base: z.string({ error: (i) => (i.input === undefined ? 'email is required' : 'email must be a string') }) }) },
    { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {email}` : 'body must be a JSON object') },
  )
  .meta({ id: 'SuppressionInput', description: 'the email is trimmed and lower-cased' });
export const suppressionSchema = z.object({ id, email: z.string(), createdAt: at }).meta({ id: 'Suppression' });
export const suppressionCreatedSchema = suppressionSchema
  .extend({ stoppedEnrollments: z.number().int().min(0).meta({ description: 'active enrollments stopped with the reason suppressed' }) })
  .meta({ id: 'SuppressionCreated' });
export const erasureSchema = z
  .object({
    stoppedEnrollments: z.number().int().min(0),
    hashedEnrollments: z.number().int().min(0).meta({
      description: 'enrollments kept for counts, the email replaced by a keyed stand-in (erased:<64 hex>, the same for the same person of the account)',
    }),
    hashedEffects: z.number().int().min(0),
    deletedSuppressions: z.number().int().min(0),
    deletedRawEvents: z.number().int().min(0),
    hashedDeliveries: z.number().int().min(0).meta({ description: 'webhook delivery records whose payload named the person, now naming the stand-in' }),
    deletedVisitors: z.number().int().min(0).meta({ description: 'site visitors once tied to the person whose page-view aggregates were deleted' }),
    deletedVisitorLinks: z.number().int().min(0).meta({ description: 'identity links (visitor to person) deleted' }),
    deletedImportedVisitors: z.number().int().min(0).meta({ description: 'imported visitors (`glimpse import visitors`) matched to the person, deleted' }),
    hashedImportedVisitors: z.number().int().min(0).meta({ description: 'other imported visitors whose page views named the email, now naming the stand-in' }),
  })
  .meta({
    id: 'Erasure',
    description:
      "what the erasure did; the account's data in Postgres and Redis no longer holds the email afterwards, and Kafka's copies are gone within 24 h (the person's record in the operator's enrichment dataset is not the account's data and stays)",
  });

const playbookRef = z.object({ id, name: z.string().nullable().meta({ description: 'null when the playbook was deleted since' }) });
export const receiptSchema = z
  .object({
    eventId: id,
    event: z.string().nullable().meta({ description: 'null for an event no playbook opted in to (only its id is kept, 72 h)' }),
    appliedAt: at,
    started: z.array(playbookRef),
    stopped: z.array(playbookRef),
    unchanged: z
      .array(playbookRef.extend({ reason: z.enum(UNCHANGED_REASONS) }))
      .meta({ description: 'each opted-in playbook the event left as it was, and why' }),
    personErased: z.boolean().meta({ description: 'the person has been erased since' }),
  })
  .meta({ id: 'EventReceipt', description: 'what an accepted event did; playbook ids and reasons only, no property value' });

// The answers' TypeScript types (the console reads them; the OpenAPI document has them all).
export type EventToken = z.infer<typeof eventTokenSchema>;
export type EventTokenCreated = z.infer<typeof eventTokenCreatedSchema>;
export type ApiKey = z.infer<typeof apiKeySchema>;
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
export type Playbook = z.infer<typeof playbookSchema>;
export type Enrollment = z.infer<typeof enrollmentSchema>;
export type CatalogPage = z.infer<typeof catalogPageSchema>;
export type RecentEvent = z.infer<typeof recentEventSchema>;
export type DryRun = z.infer<typeof dryRunSchema>;
export type Suppression = z.infer<typeof suppressionSchema>;
export type SuppressionCreated = z.infer<typeof suppressionCreatedSchema>;
export type Erasure = z.infer<typeof erasureSchema>;
export type EventReceipt = z.infer<typeof receiptSchema>;
export type Usage = z.infer<typeof usageSchema>;
