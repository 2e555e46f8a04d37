// The operator's credit limit for an account (PUT /internal/credits): the body is {credits}, a whole
// number or null (no limit), and nothing else.
import { z } from 'zod';
import { AppError } from '@glimpse/errors';
import { creditLimitSchema } from '@glimpse/validation';

const creditLimitBody = z.strictObject({ credits: creditLimitSchema }, { error: 'the body must be {"credits": N} or {"credits": null}, nothing else' });

/** The limit the body asks for; 400 invalid_request for anything else. */
export function parseCreditLimitBody(body: unknown): number | null {
  const parsed = creditLimitBody.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return parsed.data.credits;
}
