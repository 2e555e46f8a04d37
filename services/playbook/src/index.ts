export { startPlaybookService } from './start.js';
export type { RunningPlaybookService } from './start.js';
export { loadConfig, playbookLimits } from './config.js';
export {
  createPlaybook,
  listPlaybooks,
  listEnrollments,
  eventCatalog,
  validateEventNames,
  getPlaybook,
  updatePlaybook,
  deletePlaybook,
  enrollmentPage,
  eventCatalogUsage,
  eventCatalogPage,
} from './domain/manage-playbooks.js';
export type { PlaybookView, EnrollmentView, EnrollmentItem, CatalogEntry, CatalogUsage, CatalogRefusals, CatalogPage, PlaybookCaps, PlaybookRef, EnrollmentPageQuery } from './domain/manage-playbooks.js';
export { DEFAULT_LIMITS } from './domain/limits.js';
export type { PlaybookLimits } from './domain/limits.js';
export { dryRunEvent } from './domain/dry-run.js';
export { getReceipt } from './domain/receipts.js';
export type { ReceiptView } from './domain/receipts.js';
export { erasePerson, suppressPerson, suppressionPage, unsuppressPerson } from './domain/persons.js';
export type { ErasedEmail, ErasureCounts } from './domain/persons.js';
export { DEV_ERASURE_KEY } from './config.js';
export type { DryRunView } from './domain/dry-run.js';
export { decideEffects, REENROLLMENT_POLICIES } from './domain/decide-effects.js';
export type { ReenrollmentPolicy } from './domain/decide-effects.js';
