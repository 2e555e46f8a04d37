// Request bodies: declared JSON (415 otherwise), at most `limitBytes` (413), parsed, and refused
// (400) when deeper than any body this API takes, holding strings no store can keep (U+0000,
// unpaired surrogates), or naming __proto__ or constructor (prototype poisoning; a validator
// crashed on {"constructor": null}) — before they reach a handler or an internal service.
import express, { type RequestHandler } from 'express';
import { AppError } from '@glimpse/errors';
import { requireJson } from './require-json.js';

/** Deeper than any body of the API (events are two levels, playbooks two). */
export const MAX_JSON_DEPTH = 16;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const POISONED_NAMES = new Set(['__proto__', 'constructor']);

function badString(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

/** The first problem of a parsed body, or null; iterative, so no body can exhaust the stack. */
export function jsonProblem(root: unknown): string | null {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (badString(value)) return 'strings must not contain NUL characters or unpaired surrogates';
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_JSON_DEPTH) return `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`;
      for (const [key, child] of Object.entries(value)) {
        if (badString(key)) return 'names must not contain NUL characters or unpaired surrogates';
        if (POISONED_NAMES.has(key)) return `the name "${key}" is not accepted`;
        stack.push({ value: child, depth: depth + 1 });
      }
    }
  }
  return null;
}

const checkJson: RequestHandler = (req, _res, next) => {
  const problem = jsonProblem(req.body);
  if (problem) throw new AppError('invalid_request', `request body refused: ${problem}`);
  next();
};

export function jsonBody(limitBytes: number): RequestHandler[] {
  return [requireJson, express.json({ limit: limitBytes, strict: false }), checkJson];
}
