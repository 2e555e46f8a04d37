// The parts of an operation's request that the OpenAPI document's registrations share.
import type { z } from 'zod';

/** A JSON body or answer of this schema. */
export const json = (schema: z.ZodType) => ({ 'application/json': { schema } });

/** An operation's request with a required JSON body of this schema, after its other parts (path parameters, headers). */
export const withBody = (schema: z.ZodType, request: Record<string, unknown> = {}) => ({ ...request, body: { required: true, content: json(schema) } });
