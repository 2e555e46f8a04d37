// What the network behind an address says of a visitor (its network and location), and the
// companies view: GET /account/companies (the companies that visited in a window, filtered and
// paged, or as CSV) and GET /account/companies/{key} (one company's visits per day, people, pages).
// The console, the typed client and the OpenAPI document derive from these schemas.
import { z } from 'zod';
import { NETWORK_TYPES } from '@glimpse/validation';
import { companyRecordSchema } from './companies.js';
import { intentSchema } from './intent.js';

const at = z.iso.datetime();

/**
 * A registered record or null. Not `.nullable()`: the OpenAPI generator writes that as allOf of the
 * record and {type: [object, null]}, which refuses null; a union is anyOf of the record and null.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

export const networkSchema = z
  .object({
    name: z.string().nullable().meta({ description: 'who holds the range (organisation, ISP or AS name)' }),
    type: z.enum(NETWORK_TYPES).meta({ description: 'business, education and government name a company; isp, mobile, hosting and unknown do not' }),
    asn: z.int().nullable().meta({ description: 'the autonomous system' }),
    domain: z.string().nullable().optional(),
  })
  .meta({ id: 'Network', description: "the network of the visitor's last located page view (the address itself is never kept)" });

export const visitorLocationSchema = z
  .object({
    country: z.string().nullable().meta({ description: 'ISO 3166-1 alpha-2' }),
    region: z.string().nullable(),
    city: z.string().nullable(),
    time_zone: z.string().nullable().meta({ description: 'IANA time zone' }),
  })
  .meta({ id: 'VisitorLocation', description: 'where the last located page view came from (a City database, at collection)' });

export const COMPANY_SORTS = ['last_visit', 'page_views', 'score'] as const;
export const COMPANY_WINDOW_DAYS_DEFAULT = 30;
export const COMPANIES_CSV_MAX = 10_000;

const pageCount = z.object({ path: z.string(), views: z.int().min(0) });

export const companySummarySchema = z
  .object({
    key: z.string().meta({ description: 'the company domain, or its name lower-cased when the data names no domain: GET /account/companies/{key}' }),
    name: z.string(),
    domain: z.string().nullable(),
    visitors: z.int().min(0),
    identified: z.int().min(0).meta({ description: 'visitors tied to a person' }),
    page_views: z.int().min(0).meta({ description: 'in the sessions that started in the window' }),
    sessions: z.int().min(0),
    first_visit: at,
    last_visit: at,
    top_pages: z.array(pageCount).meta({ description: "the five pages its visitors viewed most in the window (from each visitor's last 20 pages)" }),
    location: orNull(visitorLocationSchema).meta({ description: 'where its latest visitor was' }),
    network_type: z.enum(NETWORK_TYPES).nullable().meta({ description: "its latest visitor's network type" }),
    firmographics: orNull(companyRecordSchema).meta({ description: 'null when no company record has this domain' }),
    intent: intentSchema
      .optional()
      .meta({ description: "the company's intent score now (its visitors' scores added, at most 100) and its reasons (its visitors' merged)" }),
  })
  .meta({ id: 'CompanySummary', description: 'a company that visited in the window' });

export const companyListSchema = z.object({ items: z.array(companySummarySchema), nextCursor: z.string().nullable() }).meta({ id: 'CompanyList' });

export const companyDetailSchema = companySummarySchema
  .extend({
    days: z
      .array(z.object({ day: z.iso.date(), visitors: z.int().min(0), sessions: z.int().min(0), page_views: z.int().min(0) }))
      .meta({ description: 'visits per UTC day of the window, oldest first, zero-filled' }),
    people: z
      .array(
        z.object({
          visitorId: z.string(),
          email: z.string().nullable(),
          lastSeen: at,
          pageViews: z.int().min(0),
          location: orNull(visitorLocationSchema),
        }),
      )
      .meta({ description: 'its visitors in the window, newest first (at most 100)' }),
    pages: z.array(pageCount).meta({ description: 'every page its visitors viewed, most viewed first (at most 50)' }),
  })
  .meta({ id: 'CompanyDetail' });

export type NetworkRecordView = z.infer<typeof networkSchema>;
export type VisitorLocation = z.infer<typeof visitorLocationSchema>;
export type CompanySummary = z.infer<typeof companySummarySchema>;
export type CompanyList = z.infer<typeof companyListSchema>;
export type CompanyDetail = z.infer<typeof companyDetailSchema>;
