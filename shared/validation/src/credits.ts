// An account's credit limit: how many enriched records it may be billed for in all. The enrichment
// service holds it in a Postgres integer column; null is no limit. One rule for the service's route
// and the CLI's --credits.
import { z } from 'zod';

/** The largest limit the column holds (a Postgres integer). */
export const CREDIT_LIMIT_MAX = 2_147_483_647;

const MESSAGE = `credits must be a whole number from 0 to ${CREDIT_LIMIT_MAX}, or null for no limit`;

export const creditLimitSchema = z
  .number({ error: MESSAGE })
  .int({ error: MESSAGE })
  .min(0, { error: MESSAGE })
  .max(CREDIT_LIMIT_MAX, { error: MESSAGE })
  .nullable();
