// Turns a stored or imported person into the exact api.md §2.3 response form, and checks an import line,
// both by the record's zod schema (@glimpse/api's enrichedRecordSchema).
import { enrichedRecordSchema, type EnrichedRecord } from '@glimpse/api';
import { conformerOf, findNullTypedFields, inSchemaOrder, isPlainObject } from './conform-record.js';

const OBJECT_ID = /^[a-fA-F0-9]{24}$/;
const conformRecord = conformerOf(enrichedRecordSchema);

/**
 * Every member and field of api.md §2.3 present (missing scalars null, lists [], objects in their
 * all-null form, experience elements likewise), values coerced only where nothing is lost
 * ("2015" → 2015 for an integer), anything else null, and unknown fields dropped.
 */
export function normalizeRecord(input: unknown): EnrichedRecord {
  return conformRecord(input) as EnrichedRecord;
}

/**
 * True when the value already is the served record: it passes the schema (every member, types,
 * formats, nothing else) with its members in the schema's order, so normalizing would not change it.
 */
export function isServedRecord(value: unknown): value is EnrichedRecord {
  return enrichedRecordSchema.safeParse(value).success && inSchemaOrder(value, enrichedRecordSchema);
}

/** Every way the value departs from the api.md §2.3 schema, as `path: message` (`experience.1.end_date: …`). */
export function recordViolations(value: unknown): string[] {
  const result = enrichedRecordSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.') || '(record)'}: ${issue.message}`);
}

/** Paths of the api.md §2.3 fields with a given type that are null (see findNullTypedFields). */
export function nullTypedFields(value: unknown): string[] {
  return findNullTypedFields(value, enrichedRecordSchema);
}

/** `asGiven`: the input already was the normalized record (so its JSON text is the served form). */
export type ImportValidation = { ok: true; record: EnrichedRecord; personId: string; asGiven: boolean } | { ok: false; error: string };

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * An import line is an enriched record whose `profile.id` is the person's 24-hex object id;
 * every other field is optional. The record returned is normalized, with the id lower-cased,
 * ready to store.
 */
export function validateImportRecord(input: unknown): ImportValidation {
  if (!isPlainObject(input)) return { ok: false, error: 'each line must be a JSON object (an enriched record)' };
  const profile = input.profile;
  if (!isPlainObject(profile) || profile.id === undefined || profile.id === null) {
    return { ok: false, error: "profile.id is required: the person's 24-hex object id" };
  }
  if (typeof profile.id !== 'string' || !OBJECT_ID.test(profile.id)) {
    return { ok: false, error: `profile.id must be 24 hexadecimal characters, got ${preview(profile.id)}` };
  }
  const personId = profile.id.toLowerCase();
  if (personId === profile.id && isServedRecord(input)) return { ok: true, record: input, personId, asGiven: true };
  const record = normalizeRecord({ ...input, profile: { ...profile, id: personId } });
  return { ok: true, record, personId, asGiven: false };
}
