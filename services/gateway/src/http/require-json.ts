// Bodies must be declared JSON; anything else is 415 before the body is read.
import type { Request, RequestHandler } from 'express';
import { AppError } from '@glimpse/errors';

export function assertJson(req: Request): void {
  if (!req.is('application/json')) throw new AppError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
}

export const requireJson: RequestHandler = (req, _res, next) => {
  assertJson(req);
  next();
};
