// A request body read as text lines, for the import endpoints that stream a file through the
// operator API. An upload that stops short (the client or the gateway gone) must not read as a
// whole file: a dataset replaced by its first half would look like a good import.
import readline from 'node:readline';
import type { IncomingMessage } from 'node:http';
import { AppError } from '@glimpse/errors';

/** The body's lines, in order; throws when the body ends before the request is complete. */
export async function* requestLines(req: IncomingMessage): AsyncGenerator<string> {
  for await (const line of readline.createInterface({ input: req, crlfDelay: Infinity })) yield line;
  if (!req.complete) throw new AppError('invalid_request', 'the upload ended before the whole file was received');
}

/** The whole body as bytes, refused past `maxBytes` (a file a format reads whole, a MaxMind DB). */
export async function requestBytes(req: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new AppError('payload_too_large', `the file exceeds the ${maxBytes} byte limit`);
    chunks.push(chunk);
  }
  if (!req.complete) throw new AppError('invalid_request', 'the upload ended before the whole file was received');
  return Buffer.concat(chunks, size);
}
