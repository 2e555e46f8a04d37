// pino behind a small factory: service name, request id on every line, personal data redacted.
import pino from 'pino';
import { currentContext } from './request-context.js';

export type Logger = pino.Logger;

/** Keys whose values are personal data or secrets; redacted wherever they appear (two levels). */
const SENSITIVE = [
  'authorization',
  'email',
  'phone',
  'properties',
  'traits',
  'token',
  'key',
  'password',
  'cookie',
  'set-cookie',
  'ip',
  'referrer',
  'userAgent',
  'x-forwarded-for',
  // A site's identity secrets (the collect path's site, the answers that show one once).
  'identity',
  'identitySecret',
  'previousIdentitySecret',
  'identity_secret',
];
export const REDACT_PATHS = SENSITIVE.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

export interface CreateLoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to inspect output. */
  destination?: pino.DestinationStream;
}

export function createLogger({ service, level = 'info', destination }: CreateLoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      mixin() {
        const ctx = currentContext();
        return ctx ? { requestId: ctx.requestId } : {};
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
