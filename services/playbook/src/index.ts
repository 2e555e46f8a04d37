export { startPlaybookService } from './start.js';
export type { RunningPlaybookService } from './start.js';
export { loadConfig, playbookLimits } from './config.js';
// The use cases with a Db first (the CLI, scripts, bench and tests call them so): each binds its
// domain use case to the data layer's store (wiring/).
export {
  createPlaybook,
  listPlaybooks,
  listEnrollments,
  eventCatalog,
  getPlaybook,
  updatePlaybook,
  deletePlaybook,
  enrollmentPage,
  eventCatalogUsage,
  eventCatalogPage,
} from './wiring/playbooks.js';
export { validateEventNames } from './domain/manage-playbooks.js';
export type { CatalogPage, PlaybookCaps, EnrollmentPageQuery } from './domain/manage-playbooks.js';
export type { PlaybookView, EnrollmentView, EnrollmentItem, CatalogEntry, CatalogUsage, CatalogRefusals, PlaybookRef } from './domain/playbook-store.js';
export { DEFAULT_LIMITS } from './domain/limits.js';
export type { PlaybookLimits } from './domain/limits.js';
export { dryRunEvent, getReceipt, erasePerson, suppressPerson, suppressionPage, unsuppressPerson } from './wiring/persons-and-events.js';
export type { ReceiptView } from './domain/receipts.js';
export type { ErasedEmail, ErasureCounts } from './domain/persons.js';
export { DEV_ERASURE_KEY } from './config.js';
export type { DryRunView } from './domain/dry-run.js';
export { decideEffects, REENROLLMENT_POLICIES } from './domain/decide-effects.js';
export type { ReenrollmentPolicy } from './domain/decide-effects.js';
