// The query of GET …/enrollments: status (active|stopped), limit and cursor; nothing else.
import { AppError } from '@glimpse/errors';
import { parsePageQuery } from '@glimpse/http';
import type { EnrollmentPageQuery } from '../domain/manage-playbooks.js';

const STATUSES = ['active', 'stopped'] as const;

export function parseEnrollmentQuery(query: Record<string, unknown>): EnrollmentPageQuery {
  const { limit, cursor, others } = parsePageQuery(query, ['status']);
  const { status } = others;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw new AppError('invalid_request', 'status must be active or stopped');
  }
  return { limit, after: cursor, ...(status ? { status: status as EnrollmentPageQuery['status'] } : {}) };
}
