// Companies (firmographics) by domain: the record the enrichment service serves, the bodies of
// POST /companies/enrichment and its bulk form, and of the internal lookup other services compose
// with. The OpenAPI document and the typed client are generated from these schemas.
import { z } from 'zod';
import { envelopeSchema } from './envelope.js';
import { MAX_BULK_ITEMS } from './enrichment.js';

/** Domains one internal lookup may name. */
export const MAX_LOOKUP_DOMAINS = 10_000;

const text = (description: string) => z.string().nullable().meta({ description });

export const companyRecordSchema = z
  .strictObject({
    domain: z.string().meta({ description: 'the key: lower-cased, without www.' }),
    name: text('the company name'),
    industry: text('its industry, as the source named it'),
    size: text('employees as a range label, e.g. "51-200"'),
    employees: z.int().min(0).nullable().meta({ description: 'the estimated number of employees' }),
    founded: z.int().nullable().meta({ description: 'the year it was founded' }),
    location: z
      .strictObject({ country: z.string().nullable(), region: z.string().nullable(), city: z.string().nullable() })
      .meta({ description: 'its headquarters: country, region (state) and city, each null when unknown' }),
    pronet_url: text("the company's professional-network page"),
  })
  .meta({ id: 'CompanyRecord', description: "A company's firmographics; a field the data lacks is null." });

export type CompanyRecord = z.infer<typeof companyRecordSchema>;

export const companyEnrichmentInputSchema = z
  .strictObject(
    {
      domain: z
        .string({ error: (i) => (i.input === undefined ? 'domain is required' : 'domain must be a string') })
        .meta({ description: 'the company domain, in any case, with or without www., or a URL of the site' }),
    },
    {
      error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {"domain": "…"}` : 'body must be a JSON object'),
    },
  )
  .meta({ id: 'CompanyEnrichmentInput' });

export type CompanyEnrichmentInput = z.infer<typeof companyEnrichmentInputSchema>;

/** The bulk envelope around `items` (unknown items in the service, each answered on its own). */
export function companyEnrichmentBulkSchema<T extends z.ZodType>(items: T) {
  return envelopeSchema('items', items, MAX_BULK_ITEMS, { item: 'lookup', whole: 'a bulk company enrichment', notArray: 'items must be an array of lookups' });
}

/** POST /internal/companies/lookup: the companies of these domains, optionally of one industry and size. Not billed. */
export const companiesLookupSchema = z.strictObject({
  domains: z
    .array(z.string({ error: 'domains must be strings' }), { error: 'domains must be an array' })
    .max(MAX_LOOKUP_DOMAINS, `at most ${MAX_LOOKUP_DOMAINS} domains`),
  industry: z.string({ error: 'industry must be a string' }).optional(),
  size: z.string({ error: 'size must be a string' }).optional(),
});

export type CompaniesLookup = z.infer<typeof companiesLookupSchema>;
