// The shape of a playbook body from the management API: {name, triggers?, exits?} on create, any
// of them on update (lists replace). Names are checked by the use cases; this checks the shape, with
// @glimpse/api's schemas (the OpenAPI document is generated from them).
import type { z } from 'zod';
import { eventInputSchema, playbookCreateSchema, playbookUpdateSchema } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { ReenrollmentPolicy } from './decide-effects.js';

export interface PlaybookChanges {
  name?: string;
  triggers?: string[];
  exits?: string[];
  reenrollment?: ReenrollmentPolicy;
}

const createSchema = playbookCreateSchema;
const updateSchema = playbookUpdateSchema;

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new AppError('invalid_request', result.error.issues[0]!.message);
  return result.data;
}

export function parseNewPlaybook(body: unknown): PlaybookChanges & { name: string } {
  return parse(createSchema, body);
}

export function parsePlaybookChanges(body: unknown): PlaybookChanges {
  return parse(updateSchema, body);
}

/** A dry run's event as the gateway forwards it (checked there already, as POST /events checks it). */
export function parseDryRunEvent(body: unknown): { event: string; email: string } {
  const { event, email } = parse(eventInputSchema, body);
  return { event, email };
}
