// The enriched record (api.md §2.3): its types are z.infer of the zod schema in @glimpse/api, the
// one description of it (the OpenAPI document comes from the same schema). Every member and field
// is always present; a scalar is null when the data is absent, a list is empty. The normalizer and
// the import check live beside this file and are re-exported here.
export type {
  Company,
  CompanyLocation,
  EnrichedRecord,
  Experience,
  ExperienceLocation,
  FundingEvent,
  JsonScalar,
  JsonValue,
  Job,
  Location,
  Organization,
  Profile,
  Social,
  SocialProfile,
  Traits,
  Unshown,
} from '@glimpse/api';
export { enrichedRecordSchema } from '@glimpse/api';
export { isServedRecord, normalizeRecord, nullTypedFields, recordViolations, validateImportRecord, type ImportValidation } from './normalize-record.js';
