// A small declarative language for JSON record shapes, and the three walks over it: conform a
// value to a shape (lossless coercions only), list the violations of a shape, list the typed
// fields that are null. The enriched record (spec §2.3) is described in it.
import { z } from 'zod';
import { absoluteHttpUrl } from './urls.js';

/** Formats the spec states for some strings; only `checkShape(..., { formats: true })` checks them. */
export type StringFormat = 'object-id' | 'email' | 'date' | 'year-month' | 'timestamp' | 'uri' | 'geo';

export interface ObjectShape<F extends Record<string, FieldShape> = Record<string, FieldShape>> {
  readonly kind: 'object';
  readonly fields: F;
}

export type FieldShape =
  | StringShape
  | { readonly kind: 'integer' }
  | { readonly kind: 'boolean' }
  /** Shown only as null in the spec: its type is not shown, so any JSON scalar (or null) is kept. */
  | { readonly kind: 'null-in-shape' }
  | { readonly kind: 'string-array' }
  /** An array whose element type the spec does not give: JSON values are kept as they are. */
  | { readonly kind: 'array' }
  | { readonly kind: 'object-array'; readonly element: ObjectShape }
  /** An object with free keys and string values (organization.industry_tag_hash). */
  | { readonly kind: 'string-map' }
  | ObjectShape;

export type StringShape = { readonly kind: 'string'; readonly format?: StringFormat };

/** Builders for shapes, so a shape reads like the spec's tables: `f.string('email')`, `f.integer`. */
export const f = {
  string: (format?: StringFormat): StringShape => (format ? { kind: 'string', format } : { kind: 'string' }),
  integer: { kind: 'integer' },
  boolean: { kind: 'boolean' },
  nullInShape: { kind: 'null-in-shape' },
  stringArray: { kind: 'string-array' },
  array: { kind: 'array' },
  stringMap: { kind: 'string-map' },
  object: <F extends Record<string, FieldShape>>(fields: F): ObjectShape<F> => ({ kind: 'object', fields }),
  objectArray: <F extends Record<string, FieldShape>>(fields: F) => ({ kind: 'object-array', element: { kind: 'object', fields } }) as const,
} as const;

export type JsonScalar = string | number | boolean;
export type JsonValue = JsonScalar | null | JsonValue[] | { [key: string]: JsonValue };

/** The TypeScript type a shape describes (every field present, every scalar nullable). */
export type ShapeType<S> = S extends ObjectShape<infer F>
  ? { -readonly [K in keyof F]: ShapeType<F[K]> }
  : S extends { kind: 'string' } ? string | null
  : S extends { kind: 'integer' } ? number | null
  : S extends { kind: 'boolean' } ? boolean | null
  : S extends { kind: 'null-in-shape' } ? JsonScalar | null
  : S extends { kind: 'string-array' } ? string[]
  : S extends { kind: 'array' } ? JsonValue[]
  : S extends { kind: 'object-array'; element: infer E } ? ShapeType<E>[]
  : S extends { kind: 'string-map' } ? Record<string, string>
  : never;

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

function toJsonScalar(value: unknown): JsonScalar | null {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

/** A deep copy keeping only JSON values; undefined when the value is not one. */
function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(toJsonValue).filter((v): v is JsonValue => v !== undefined);
  if (isPlainObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [key, v] of Object.entries(value)) {
      const json = toJsonValue(v);
      if (json !== undefined) out[key] = json;
    }
    return out;
  }
  return toJsonScalar(value) ?? undefined;
}

/**
 * Returns the value in exactly the given shape: every field present, in the shape's order;
 * missing or unusable scalars become null, arrays [], objects their all-null form; fields the
 * shape does not name are dropped. Only lossless coercions are made ("2015" → 2015, 42 → "42"),
 * and a string out of its stated format is null (a scheme-less URL is read as https).
 */
export function conformToShape(value: unknown, shape: FieldShape): unknown {
  switch (shape.kind) {
    case 'string': {
      const text = toStringValue(value);
      return text === null || !shape.format ? text : conformFormat(text, shape.format);
    }
    case 'integer':
      return toInteger(value);
    case 'boolean':
      return toBoolean(value);
    case 'null-in-shape':
      return toJsonScalar(value);
    case 'string-array': {
      // One string where a list was expected is a list of one: nothing is lost.
      const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
      return items.map(toStringValue).filter((s): s is string => s !== null);
    }
    case 'array':
      return Array.isArray(value) ? (toJsonValue(value) as JsonValue[]) : [];
    case 'object-array':
      return Array.isArray(value) ? value.filter(isPlainObject).map((item) => conformToShape(item, shape.element)) : [];
    case 'string-map': {
      const out: Record<string, string> = {};
      if (!isPlainObject(value)) return out;
      for (const [key, v] of Object.entries(value)) {
        const text = toStringValue(v);
        if (text !== null) out[key] = text;
      }
      return out;
    }
    case 'object': {
      const source = isPlainObject(value) ? value : {};
      const out: Record<string, unknown> = {};
      for (const [key, fieldShape] of Object.entries(shape.fields)) out[key] = conformToShape(source[key], fieldShape);
      return out;
    }
  }
}

const fieldNames = new WeakMap<ObjectShape, string[]>();
function namesOf(shape: ObjectShape): string[] {
  let names = fieldNames.get(shape);
  if (!names) fieldNames.set(shape, (names = Object.keys(shape.fields)));
  return names;
}

/**
 * True when conformToShape would return the value unchanged: every field present in the shape's
 * order and nothing else, every value of its type and stated format. A walk that allocates nothing,
 * so an import can keep a record that is already in the served form as it came.
 */
export function conforms(value: unknown, shape: FieldShape): boolean {
  switch (shape.kind) {
    case 'string':
      if (value === null) return true;
      if (typeof value !== 'string') return false;
      if (!shape.format) return true;
      return shape.format === 'uri' ? absoluteHttpUrl(value) === value : FORMAT_TESTS[shape.format](value);
    case 'integer':
      return value === null || Number.isSafeInteger(value);
    case 'boolean':
      return value === null || typeof value === 'boolean';
    case 'null-in-shape':
      return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    case 'string-array':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'array':
      return Array.isArray(value) && isJsonValue(value);
    case 'object-array':
      return Array.isArray(value) && value.every((item) => isPlainObject(item) && conforms(item, shape.element));
    case 'string-map':
      return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
    case 'object': {
      if (!isPlainObject(value)) return false;
      const names = namesOf(shape);
      let i = 0;
      for (const key in value) {
        if (key !== names[i] || !conforms(value[key], shape.fields[key]!)) return false;
        i += 1;
      }
      return i === names.length;
    }
  }
}

const FORMAT_TESTS: Record<StringFormat, (s: string) => boolean> = {
  'object-id': (s) => /^[a-fA-F0-9]{24}$/.test(s),
  // The same address rule as normalizeEmail and POST /events (zod's).
  email: (s) => z.regexes.email.test(s),
  date: (s) => /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(s) && !Number.isNaN(Date.parse(s)),
  'year-month': (s) => /^\d{4}-(0[1-9]|1[0-2])$/.test(s),
  // RFC 3339 date-time: seconds and an offset required.
  timestamp: (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  uri: (s) => /^https?:\/\/\S+$/.test(s) && URL.canParse(s),
  geo: (s) => {
    const match = /^(-?\d{1,2}(?:\.\d+)?),(-?\d{1,3}(?:\.\d+)?)$/.exec(s);
    return match !== null && Math.abs(Number(match[1])) <= 90 && Math.abs(Number(match[2])) <= 180;
  },
};

/**
 * A string in its stated format, or null: answers conform to the interface's formats. A URL
 * without a scheme (as data vendors store them) is read as https; URLs come back in WHATWG form.
 */
function conformFormat(text: string, format: StringFormat): string | null {
  if (format === 'uri') return absoluteHttpUrl(text) ?? null;
  return FORMAT_TESTS[format](text) ? text : null;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  return isPlainObject(value) && Object.values(value).every(isJsonValue);
}

export interface CheckOptions {
  /** Also check the formats the spec states (24-hex id, email, date, YYYY-MM, timestamp, URL, geo). */
  formats?: boolean;
}

/**
 * Lists every way the value departs from the shape: a missing field, an unexpected field, a
 * wrong type (null is allowed for scalars, never for arrays or objects), and with `formats`, a
 * string not in its stated format. Paths read like `experience[1].company.location.geo`.
 */
export function checkShape(value: unknown, shape: FieldShape, options: CheckOptions = {}, path = '(record)'): string[] {
  const at = (p: string) => (path === '(record)' ? p : `${path}.${p}`);
  const wrong = (expected: string) => [`${path}: expected ${expected}, got ${typeName(value)}`];
  switch (shape.kind) {
    case 'string':
      if (value === null) return [];
      if (typeof value !== 'string') return wrong('string or null');
      if (options.formats && shape.format && !FORMAT_TESTS[shape.format](value)) return [`${path}: "${value}" is not a valid ${shape.format}`];
      return [];
    case 'integer':
      return value === null || Number.isSafeInteger(value) ? [] : wrong('integer or null');
    case 'boolean':
      return value === null || typeof value === 'boolean' ? [] : wrong('boolean or null');
    case 'null-in-shape':
      return value === null || toJsonScalar(value) !== null ? [] : wrong('null or a JSON scalar');
    case 'string-array':
      if (!Array.isArray(value)) return wrong('array of strings');
      return value.flatMap((item, i) => (typeof item === 'string' ? [] : [`${path}[${i}]: expected string, got ${typeName(item)}`]));
    case 'array':
      return Array.isArray(value) && isJsonValue(value) ? [] : wrong('array of JSON values');
    case 'object-array':
      if (!Array.isArray(value)) return wrong('array of objects');
      return value.flatMap((item, i) => checkShape(item, shape.element, options, `${path}[${i}]`));
    case 'string-map':
      if (!isPlainObject(value)) return wrong('object of strings');
      return Object.entries(value).flatMap(([key, v]) => (typeof v === 'string' ? [] : [`${at(key)}: expected string, got ${typeName(v)}`]));
    case 'object': {
      if (!isPlainObject(value)) return wrong('object');
      const missing = Object.keys(shape.fields).filter((key) => !(key in value)).map((key) => `${at(key)}: missing`);
      const extra = Object.keys(value).filter((key) => !(key in shape.fields)).map((key) => `${at(key)}: not in the spec shape`);
      const nested = Object.entries(shape.fields).flatMap(([key, fieldShape]) => (key in value ? checkShape(value[key], fieldShape, options, at(key)) : []));
      return [...missing, ...extra, ...nested];
    }
  }
}

/** Paths of the fields whose type the spec gives but whose value is null (null-in-shape fields excluded). */
export function findNullTypedFields(value: unknown, shape: FieldShape, path = '(record)'): string[] {
  const at = (p: string) => (path === '(record)' ? p : `${path}.${p}`);
  if (value === null || value === undefined) return shape.kind === 'null-in-shape' ? [] : [path];
  if (shape.kind === 'object' && isPlainObject(value)) {
    return Object.entries(shape.fields).flatMap(([key, fieldShape]) => findNullTypedFields(value[key], fieldShape, at(key)));
  }
  if (shape.kind === 'object-array' && Array.isArray(value)) {
    return value.flatMap((item, i) => findNullTypedFields(item, shape.element, `${path}[${i}]`));
  }
  return [];
}
