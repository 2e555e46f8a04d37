// Conforming a value to a record schema of @glimpse/api (the enriched record): the zod schema is
// read once into a function that builds the served form. zod's own parse only accepts or refuses,
// and an import must keep what it can of a vendor's record, so the lenient half is done here,
// led by the schema's members, types and formats; the schema stays the one description.
import { z } from 'zod';
import { absoluteHttpUrl } from './urls.js';

export type Conform = (value: unknown) => unknown;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

const INTEGER_TEXT = /^[+-]?\d+$/;

function toStringValue(value: unknown): string | null {
  if (typeof value === 'string') return value;
  // A number read back as text loses nothing (a phone or a postal code stored as a number).
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function toInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && INTEGER_TEXT.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

function toBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return null;
}

function toJsonScalar(value: unknown): string | number | boolean | null {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

/** A deep copy keeping only JSON values; undefined when the value is not one. */
function toJsonValue(value: unknown): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(toJsonValue).filter((v) => v !== undefined);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const json = toJsonValue(v);
      if (json !== undefined) out[key] = json;
    }
    return out;
  }
  return toJsonScalar(value) ?? undefined;
}

type Def = z.core.$ZodTypeDef & {
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  format?: string;
  checks?: unknown[];
};
const defOf = (schema: z.ZodType) => schema._zod.def as Def;

/**
 * A nullable string: text (a number read as text), then its stated format or null. A URI is read
 * as vendors store them, a scheme-less one as https, and served in WHATWG form.
 */
function conformString(nullable: z.ZodType, inner: z.ZodType): Conform {
  if (z.globalRegistry.get(nullable)?.format === 'uri') return (value) => absoluteHttpUrl(toStringValue(value)) ?? null;
  const def = defOf(inner);
  if (!def.format && !def.checks?.length) return toStringValue;
  return (value) => {
    const text = toStringValue(value);
    return text !== null && inner.safeParse(text).success ? text : null;
  };
}

function conformNullable(nullable: z.ZodType): Conform {
  const inner = defOf(nullable).innerType!;
  switch (defOf(inner).type) {
    case 'string':
      return conformString(nullable, inner);
    case 'number':
      return toInteger;
    case 'boolean':
      return toBoolean;
    // The fields the interface shows only as null: any JSON scalar.
    case 'union':
      return toJsonScalar;
    default:
      throw new Error(`no rule to conform a nullable ${defOf(inner).type}`);
  }
}

function conformArray(array: z.ZodType): Conform {
  const element = defOf(array).element!;
  switch (defOf(element).type) {
    // One string where a list was expected is a list of one: nothing is lost.
    case 'string':
      return (value) => (Array.isArray(value) ? value : typeof value === 'string' ? [value] : []).map(toStringValue).filter((s) => s !== null);
    case 'object': {
      const item = conformerOf(element);
      return (value) => (Array.isArray(value) ? value.filter(isPlainObject).map(item) : []);
    }
    // An array whose element type the interface does not give: JSON values are kept as they are.
    case 'unknown':
      return (value) => (Array.isArray(value) ? toJsonValue(value) : []);
    default:
      throw new Error(`no rule to conform an array of ${defOf(element).type}`);
  }
}

/** An object with free keys and string values (organization.industry_tag_hash). */
function conformStringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(value)) return out;
  for (const [key, v] of Object.entries(value)) {
    const text = toStringValue(v);
    if (text !== null) out[key] = text;
  }
  return out;
}

function conformObject(object: z.ZodType): Conform {
  const fields = Object.entries(defOf(object).shape!).map(([key, schema]) => [key, conformerOf(schema)] as const);
  return (value) => {
    const source = isPlainObject(value) ? value : {};
    const out: Record<string, unknown> = {};
    for (const [key, conform] of fields) out[key] = conform(source[key]);
    return out;
  };
}

const conformers = new WeakMap<z.ZodType, Conform>();

/**
 * The function that returns a value in exactly the schema's form: every member present, in the
 * schema's order; a missing or unusable scalar null, a list [], an object its all-null form;
 * members the schema does not name dropped. Only lossless coercions ("2015" → 2015, 42 → "42"),
 * and a string out of its stated format is null. Throws for a schema type it has no rule for.
 */
export function conformerOf(schema: z.ZodType): Conform {
  let conform = conformers.get(schema);
  if (conform) return conform;
  const kind = defOf(schema).type;
  if (kind === 'object') conform = conformObject(schema);
  else if (kind === 'nullable') conform = conformNullable(schema);
  else if (kind === 'array') conform = conformArray(schema);
  else if (kind === 'record') conform = conformStringMap;
  else throw new Error(`no rule to conform a ${kind}`);
  conformers.set(schema, conform);
  return conform;
}

type OrderCheck = (value: unknown) => boolean;
const orderChecks = new WeakMap<z.ZodType, OrderCheck | null>();

/** The order check of an object, or of an array of objects; null for a schema holding no object. */
function orderCheckOf(schema: z.ZodType): OrderCheck | null {
  if (orderChecks.has(schema)) return orderChecks.get(schema)!;
  const def = defOf(schema);
  let check: OrderCheck | null = null;
  if (def.type === 'array') {
    const item = orderCheckOf(def.element!);
    if (item) check = (value) => (value as unknown[]).every(item);
  } else if (def.type === 'object') {
    const names = Object.keys(def.shape!);
    const inner = names.map((key) => orderCheckOf(def.shape![key]!));
    check = (value) => {
      const object = value as Record<string, unknown>;
      let i = 0;
      for (const key in object) {
        if (key !== names[i]) return false;
        const nested = inner[i];
        if (nested && !nested(object[key])) return false;
        i += 1;
      }
      return true;
    };
  }
  orderChecks.set(schema, check);
  return check;
}

/**
 * True when every object in the value lists its members in the schema's order (the value having
 * passed the schema, so the members are the schema's): the text of such a value is the served text.
 */
export function inSchemaOrder(value: unknown, schema: z.ZodType): boolean {
  return orderCheckOf(schema)?.(value) ?? true;
}

/**
 * Paths of the fields whose type the schema gives but whose value is null (the fields shown only
 * as null in the interface excepted), like `experience[0].end_date`: what a filled record still lacks.
 */
export function findNullTypedFields(value: unknown, schema: z.ZodType, path = '(record)'): string[] {
  const def = defOf(schema);
  const at = (key: string) => (path === '(record)' ? key : `${path}.${key}`);
  if (value === null || value === undefined) return def.type === 'nullable' && defOf(def.innerType!).type === 'union' ? [] : [path];
  if (def.type === 'object' && isPlainObject(value))
    return Object.entries(def.shape!).flatMap(([key, field]) => findNullTypedFields(value[key], field, at(key)));
  if (def.type === 'array' && defOf(def.element!).type === 'object' && Array.isArray(value))
    return value.flatMap((item, i) => findNullTypedFields(item, def.element!, `${path}[${i}]`));
  return [];
}
