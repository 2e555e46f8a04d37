// Gives every request an id (the caller's x-request-id when sane, else a new one), echoes it,
// and runs the rest of the request inside that context for the logger.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { runWithContext } from '@glimpse/logging';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', id);
  runWithContext({ requestId: id }, () => next());
};
