// Checks answers against the public API's OpenAPI document, generated from the services' zod
// schemas (@glimpse/api; committed as docs/openapi.json), with an independent validator (Ajv, JSON
// Schema 2020-12 as OpenAPI 3.1 uses it, and ajv-formats), so a test that calls an endpoint through
// these helpers also proves the answer keeps the document's promises: status listed for the
// operation, JSON content, body valid, required headers (Retry-After, X-Event-Id) present.
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '@glimpse/api';
import type { HttpResult } from './stack';

export const OPENAPI_FILE = path.join(__dirname, '..', '..', 'docs', 'openapi.json');

type Json = Record<string, unknown>;

interface Operation {
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, { schema: Json }> }>;
}

export function loadInterface(): Json {
  return buildOpenApiDocument();
}

const document = loadInterface();
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
// The whole document is one schema resource, so '#/components/schemas/…' references resolve in it.
ajv.addSchema(document, 'interface', undefined, false);

const paths = document.paths as Record<string, Record<string, Operation>>;
const components = document.components as { responses?: Record<string, Operation['responses'][string]>; headers?: Record<string, { required?: boolean }> };

/** The path template of the document that matches a concrete path, or undefined. */
function findTemplate(concrete: string): string | undefined {
  const pathname = new URL(concrete, 'http://x').pathname;
  return Object.keys(paths).find((template) => new RegExp(`^${template.replace(/\{[^{}]+\}/g, '[^/]+')}$`).test(pathname));
}

/** Whether `method path` is an operation of the document (so its answers must conform to it). */
export function isDocumented(method: string, path: string): boolean {
  const template = findTemplate(path);
  return template !== undefined && paths[template]![method.toLowerCase()] !== undefined;
}

/** The path template of the interface that matches a concrete path, e.g. /visitors/{visitorId}/details. */
function templateOf(concrete: string): string {
  const pathname = new URL(concrete, 'http://x').pathname;
  const found = Object.keys(paths).find((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^{}]+\}/g, '[^/]+')}$`);
    return pattern.test(pathname);
  });
  if (!found) throw new Error(`${pathname} is not a path of the API document`);
  return found;
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `interface${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The problems of an answer to `method path` under the interface: [] when it conforms. `path`
 * may be a concrete path or a full URL.
 */
export function interfaceViolations(method: string, path: string, res: Pick<HttpResult, 'status' | 'body' | 'headers'>): string[] {
  const template = templateOf(path);
  const verb = method.toLowerCase();
  const operation = paths[template]![verb];
  if (!operation) return [`${method} ${template} is not an operation of the interface`];
  let response = operation.responses[String(res.status)];
  if (!response) return [`${method} ${template} answered ${res.status}, a status the interface does not list`];
  let pointer = `#/paths/${escapePointer(template)}/${verb}/responses/${res.status}`;
  if (response.$ref) {
    pointer = response.$ref;
    response = components.responses![response.$ref.split('/').at(-1)!]!;
  }
  const problems: string[] = [];
  for (const [name, given] of Object.entries(response.headers ?? {})) {
    const header = given as { $ref?: string; required?: boolean };
    const resolved = header.$ref ? components.headers?.[header.$ref.split('/').at(-1)!] : header;
    if (resolved?.required === true && !res.headers.get(name)) problems.push(`${res.status} lacks the ${name} header`);
  }
  if (!response.content) return problems;
  const type = res.headers.get('content-type') ?? '';
  // A documented non-JSON answer (the companies CSV): its media type is checked, its text is not.
  const documented = Object.keys(response.content);
  if (!documented.includes('application/json')) {
    return documented.some((media) => type.startsWith(media))
      ? problems
      : [...problems, `${res.status} content-type is "${type}", not ${documented.join(' or ')}`];
  }
  if (!type.startsWith('application/json')) return [...problems, `${res.status} content-type is "${type}", not application/json`];
  if (typeof res.body === 'string') return [...problems, `${res.status} body is not JSON: ${res.body.slice(0, 80)}`];
  const validate = validatorFor(`${pointer}/content/application~1json/schema`);
  if (!validate(res.body)) {
    problems.push(
      ...(validate.errors ?? []).map((e) => `${res.status} body${e.instancePath || ''} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`),
    );
  }
  return problems;
}

/** Fails the test unless the answer conforms to the interface. */
export function expectConformsToInterface(method: string, path: string, res: Pick<HttpResult, 'status' | 'body' | 'headers'>): void {
  expect({ [`${method} ${templateOf(path)} → ${res.status}`]: interfaceViolations(method, path, res) }).toEqual({
    [`${method} ${templateOf(path)} → ${res.status}`]: [],
  });
}
