// The rules for a POST /events body (spec §4.3, §8): what is accepted and the message for what is
// not. The schema lives in @glimpse/api, which generates the OpenAPI document from it.
import { eventInputSchema, type EventInput } from '@glimpse/api';
import { AppError } from '@glimpse/errors';

export type { EventInput };

export function parseEventInput(body: unknown): EventInput {
  const result = eventInputSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 1 ? ` (${issue.path.join('.')})` : '';
  throw new AppError('invalid_request', `${issue.message}${where}`);
}
