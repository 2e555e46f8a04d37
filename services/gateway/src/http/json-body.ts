// Request bodies: declared JSON (415 otherwise), at most `limitBytes` (413), parsed, and refused
// (400) when deeper than any body this API takes, holding strings no store can keep (U+0000,
// unpaired surrogates), or naming __proto__ or constructor (prototype poisoning; a validator
// crashed on {"constructor": null}) — before they reach a handler or an internal service.
//
// Almost every body is plain: `application/json` (UTF-8 or no charset), not compressed, with a
// Content-Length within the limit. Those are read here directly, which is most of what a small
// body costs: body-parser's media-type parsing (twice, with type-is), its charset decoder and its
// listeners. Everything else (other charsets, Content-Encoding, chunked, too large, not JSON)
// goes through type-is and body-parser as before, so every answer stays theirs.
import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '@glimpse/errors';
import { assertJson } from './require-json.js';

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

function checked(body: unknown): unknown {
  const problem = jsonProblem(body);
  if (problem) throw new AppError('invalid_request', `request body refused: ${problem}`);
  return body;
}

/** The Content-Types read directly: JSON without a charset or in UTF-8 (as body-parser takes them). */
const PLAIN_JSON = /^application\/json[ \t]*(?:;[ \t]*charset=(?:utf-8|"utf-8")[ \t]*)?$/i;

/** The Content-Length of a plain body within `limitBytes`, or null when body-parser must read it. */
function plainLength(req: IncomingMessage, limitBytes: number): number | null {
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined) return null;
  if (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity') return null;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON.test(type)) return null;
  const declared = headers['content-length'];
  if (declared === undefined || declared === '') return null;
  const length = Number(declared);
  return Number.isSafeInteger(length) && length >= 0 && length <= limitBytes ? length : null;
}

/** As body-parser words a request that ended early (toAppError reads its `type`). */
function aborted(cause?: unknown): Error {
  return Object.assign(new Error('request aborted', { cause }), { type: 'request.aborted', status: 400 });
}

/** The `length` bytes of the body; rejects when the client goes away first. */
function readPlain(req: IncomingMessage, length: number): Promise<Buffer> {
  if (!req.readable) return Promise.reject(aborted()); // gone while the request waited for its turn
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    const done = (err: Error | null) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    // Node ends a request only after exactly Content-Length bytes; anything else is an abort.
    const onEnd = () => done(received === length ? null : aborted());
    const onError = (err: Error) => done(aborted(err));
    const onClose = () => done(aborted());
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** body-parser's JSON rules: a UTF-8 byte order mark is dropped, an empty body is {}. */
function parsePlain(bytes: Buffer): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_request', 'request body is not valid JSON', { cause: err });
  }
}

/** Reads, parses and checks a JSON body of at most `limitBytes`; also sets req.body. */
export type JsonBodyReader = (req: Request, res: Response) => Promise<unknown>;

export function jsonBodyReader(limitBytes: number): JsonBodyReader {
  const bodyParser = express.json({ limit: limitBytes, strict: false });
  const parseAnyOther = (req: Request, res: Response) => {
    assertJson(req);
    return new Promise<void>((resolve, reject) => {
      void bodyParser(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
  };
  return async (req, res) => {
    const length = plainLength(req, limitBytes);
    if (length === null) await parseAnyOther(req, res);
    else req.body = parsePlain(await readPlain(req, length));
    return checked(req.body);
  };
}

/** The same as middleware, for routes that take the body as req.body (a new one for each limit). */
export function jsonBodyParser(limitBytes: number): RequestHandler {
  const read = jsonBodyReader(limitBytes);
  return async (req, res, next) => {
    await read(req, res);
    next();
  };
}
