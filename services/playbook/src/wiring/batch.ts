// The batch apply bound to Postgres: the domain's use case (domain/apply-batch.ts) with the data
// layer's store (data/batch-store.ts). The consumer binds them once; this form is for the tests and
// callers that hold a Db.
import type { Db } from '@glimpse/db/playbook';
import { createErasedEmail, type InboundEvent } from '@glimpse/messaging';
import { DEV_ERASURE_KEY } from '../config.js';
import { createBatchStore } from '../data/batch-store.js';
import { applyBatch as applyBatchWith, type BatchOutcome } from '../domain/apply-batch.js';
import type { AccountsCheck, ErasedEmail } from '../domain/batch-store.js';

/** The development stand-in (tests); the consumer always passes the service's own (PLAYBOOK_ERASURE_KEY). */
const devErasedEmail = createErasedEmail(DEV_ERASURE_KEY);

export async function applyBatch(
  db: Db,
  events: readonly InboundEvent[],
  accounts: AccountsCheck,
  now = new Date(),
  erasedEmail: ErasedEmail = devErasedEmail,
): Promise<BatchOutcome> {
  return applyBatchWith({ store: createBatchStore(db), accounts, erasedEmail }, events, now);
}
