// The answers of the two lookups (api.md §2.1 visitor details, api.md §2.3 enriched record) as zod schemas,
// the one description of them: the OpenAPI document's components come from them (document.ts),
// their TypeScript types are z.infer of them, and the enrichment service checks an imported record
// with them and conforms one to them. Objects are strict and list their members in the interface's
// order, which is also the order of the keys in an answer.
import { z } from 'zod';
import { companyRecordSchema } from './companies.js';
import { networkSchema, visitorLocationSchema } from './company-views.js';
import { intentSchema } from './intent.js';

export type JsonScalar = string | number | boolean;
export type JsonValue = JsonScalar | null | JsonValue[] | { [key: string]: JsonValue };

// The formats the interface states. A check the JSON Schema cannot say (a real calendar date, a latitude
// within ±90) is a refinement: the document shows the format, zod checks all of it.
const OBJECT_ID = /^[a-fA-F0-9]{24}$/;
const YEAR_MONTH = /^[0-9]{4}-(0[1-9]|1[0-2])$/;
const GEO = /^-?[0-9]{1,2}(\.[0-9]+)?,-?[0-9]{1,3}(\.[0-9]+)?$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
// RFC 3339 date-time: seconds and an offset required (zod's z.iso.datetime makes seconds optional).
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const isDate = (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(s));
const isTimestamp = (s: string) => TIMESTAMP.test(s) && !Number.isNaN(Date.parse(s));
const inGeoRange = (s: string) => {
  const [lat, lon] = s.split(',').map(Number) as [number, number];
  return Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
};

/**
 * A URL as the services serve it: absolute http(s) with a dotted host, in WHATWG form (what
 * `new URL(s).href` gives, so percent-encoded: a valid RFC 3986 URI).
 */
export function isServedUrl(s: string): boolean {
  if (!URL.canParse(s)) return false;
  const url = new URL(s);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.includes('.') && url.href === s;
}

const servedUrl = z.string().refine(isServedUrl, 'must be an absolute http(s) URL in WHATWG form');
const timestamp = z.string().refine(isTimestamp, 'must be an RFC 3339 date-time with seconds and an offset');

// Named leaves: components of the document, $ref'd wherever a field has the type.
const str = z.string().nullable().meta({ id: 'Str' });
const int = z.int().nullable().meta({ id: 'Int' });
const bool = z.boolean().nullable().meta({ id: 'Bool' });
/** A field the interface shows only as null: its type is not shown, so any JSON scalar is kept. */
const unshown = z
  .union([z.string(), z.number(), z.boolean()])
  .nullable()
  .meta({ id: 'Unshown', description: 'shown only as null in the interface; its type is not shown' });
const strings = z.array(z.string()).meta({ id: 'Strings' });
// An array whose element type the interface does not give: any JSON values. Typed as JsonValue[] (a
// recursive z.json() is beyond zod-to-openapi); the values come from JSON.parse, so they are JSON.
const anyList = z.array(z.unknown()).meta({ id: 'AnyList' }) as unknown as z.ZodType<JsonValue[]>;
const url = servedUrl.nullable().meta({ id: 'Url', format: 'uri' });
const geo = z
  .string()
  .regex(GEO)
  .refine(inGeoRange, 'latitude within ±90, longitude within ±180')
  .nullable()
  .meta({ id: 'Geo', description: '<latitude>,<longitude>' });
const yearMonth = z.string().regex(YEAR_MONTH).nullable().meta({ id: 'YearMonth' });
const timestampOrNull = timestamp.nullable().meta({ id: 'Timestamp', format: 'date-time' });

// The location object has three variants (api.md §2.3): the top-level one has last_updated, the
// company's has city and state but no last_updated, the experience company's has neither.
const locationRest = {
  locality: str,
  metro: unshown,
  region: str,
  country: str,
  continent: str,
  street_address: unshown,
  address_line_2: unshown,
  postal_code: unshown,
  geo,
};
export const experienceLocationSchema = z.strictObject({ name: str, ...locationRest }).meta({ id: 'ExperienceLocation' });
export const companyLocationSchema = z.strictObject({ name: str, city: str, state: str, ...locationRest }).meta({ id: 'CompanyLocation' });
export const locationSchema = z.strictObject({ name: str, city: str, state: str, ...locationRest, last_updated: unshown }).meta({ id: 'Location' });

const socialProfile = z.strictObject({ url: str, username: str }).meta({ id: 'SocialProfile' });

const profile = z.strictObject({
  id: z.string().regex(OBJECT_ID).nullable(),
  alias: str,
  email: z.email().nullable(),
});

const traits = z.strictObject({
  id: str,
  email: str,
  full_name: str,
  first_name: str,
  last_name: str,
  middle_initial: unshown,
  middle_name: unshown,
  work_email: str,
  recommended_personal_email: str,
  emails: z.array(z.strictObject({ address: str, type: str })),
  gender: str,
  birth_year: int,
  birth_date: z.string().refine(isDate, 'must be a date, YYYY-MM-DD').nullable().meta({ format: 'date' }),
  mobile_phone: str,
  phone_numbers: strings,
  industry: str,
  home_owner: unshown,
  married: unshown,
  children: unshown,
  email_status: unshown,
  extrapolated_email_confidence: unshown,
  photo_url: url,
});

const social = z.strictObject({
  pronet: z.strictObject({ id: str, url: str, username: str }),
  social1: socialProfile,
  social2: socialProfile,
  codehost: socialProfile,
});

const company = z.strictObject({
  name: str,
  /** A range label, e.g. "51-200". */
  size: str,
  founded: int,
  industry: str,
  description: str,
  /** A range label, e.g. "$10M-$50M". */
  revenue: str,
  phone_numbers: strings,
  website: str,
  pronet: z.strictObject({ url: str, id: str }),
  location: companyLocationSchema,
});

const fundingEvent = z.strictObject({
  id: str,
  date: timestampOrNull,
  news_url: str,
  type: str,
  investors: str,
  amount: str,
  currency: str,
});

export const organizationSchema = z
  .strictObject({
    id: str,
    name: str,
    website_url: str,
    blog_url: str,
    startup_url: str,
    pronet_url: str,
    social2_url: str,
    social1_url: str,
    logo_url: str,
    funding_url: unshown,
    primary_phone: z.strictObject({ number: str, source: str, sanitized_number: str }),
    languages: strings,
    traffic_ranking: unshown,
    phone: str,
    sanitized_phone: str,
    pronet_uid: str,
    founded_year: int,
    publicly_traded_symbol: unshown,
    publicly_traded_exchange: unshown,
    primary_domain: str,
    sic_codes: strings,
    naics_codes: strings,
    industry: str,
    estimated_num_employees: int,
    keywords: strings,
    organization_revenue_printed: str,
    annual_revenue_printed: str,
    organization_revenue: int,
    annual_revenue: int,
    industries: strings,
    secondary_industries: strings,
    snippets_loaded: bool,
    industry_tag_id: str,
    /** Industry name → tag identifier. */
    industry_tag_hash: z.record(z.string(), z.string()),
    retail_location_count: int,
    raw_address: str,
    street_address: str,
    city: str,
    state: str,
    postal_code: str,
    country: str,
    owned_by_organization_id: str,
    owned_by_organization: z.strictObject({ id: str, name: str, website_url: str }),
    short_description: str,
    suborganizations: anyList,
    num_suborganizations: int,
    total_funding: int,
    total_funding_printed: str,
    latest_funding_round_date: timestampOrNull,
    latest_funding_stage: str,
    funding_events: z.array(fundingEvent),
    technology_names: strings,
    current_technologies: z.array(z.strictObject({ uid: str, name: str, category: str })),
    org_chart_root_people_ids: strings,
    org_chart_sector: str,
    org_chart_removed: bool,
    org_chart_show_department_filter: bool,
    organization_headcount_six_month_growth: unshown,
    organization_headcount_twelve_month_growth: unshown,
    organization_headcount_twenty_four_month_growth: unshown,
  })
  .meta({ id: 'Organization' });

const job = z.strictObject({
  title: str,
  role: str,
  headline: str,
  seniority: str,
  sub_role: unshown,
  title_levels: anyList,
  income_range: str,
  net_worth: str,
  functions: strings,
  departments: strings,
  subdepartments: strings,
});

export const experienceSchema = z
  .strictObject({
    company: z.strictObject({
      name: str,
      size: str,
      id: str,
      founded: int,
      industry: str,
      location: experienceLocationSchema,
      pronet_url: str,
      pronet_id: str,
      social1_url: str,
      social2_url: str,
      website: str,
    }),
    location_names: anyList,
    start_date: yearMonth,
    // null means the position is current (api.md §2.3), so a null here is data, not absence.
    end_date: yearMonth.meta({ description: 'null for a current position' }),
    title: z.strictObject({ name: str, role: str, sub_role: unshown, levels: anyList }),
    is_primary: bool,
  })
  .meta({ id: 'Experience' });

/** The whole api.md §2.3 record: every member and field always present, a scalar null when absent, a list empty. */
export const enrichedRecordSchema = z
  .strictObject({
    profile,
    traits,
    social,
    company,
    organization: organizationSchema,
    job,
    location: locationSchema,
    location_names: anyList,
    street_addresses: anyList,
    regions: anyList,
    experience: z.array(experienceSchema),
    interests: anyList,
    skills: anyList,
    device: z.strictObject({ type: str }),
  })
  .meta({ id: 'EnrichedRecord' });

/**
 * The person's seven fields of the visitor details (docs/api.md), in their order: strings, each left out
 * when the person lacks it. The gateway's details, the visitor.identified webhook and enrichment's
 * answer all take these, and only these, from a person.
 */
export const PERSON_FIELDS = [
  'firstName',
  'lastName',
  'name',
  'email',
  'company',
  'company_role',
  'pronet_url',
] as const satisfies readonly (keyof VisitorDetails)[];
export type PersonField = (typeof PERSON_FIELDS)[number];

const IDENTIFIED_BY_METHODS = ['identify', 'email_link', 'form', 'ip_company', 'import'] as const;

/** api.md §2.1: every field a string, none required; the page-view fields the interface does not show follow. */
export const visitorDetailsSchema = z
  .strictObject({
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    name: z.string().optional(),
    email: z.email().optional(),
    company: z.string().optional(),
    company_role: z.string().optional(),
    pronet_url: servedUrl.meta({ format: 'uri' }).optional(),
    page_views: z.int().min(0).optional(),
    last_seen_at: timestamp.meta({ format: 'date-time' }).optional(),
    sessions: z
      .int()
      .min(0)
      .meta({ description: 'visits of a visitor seen by the site tag (a new one after 30 idle minutes or a new UTM campaign)' })
      .optional(),
    first_seen: timestamp.meta({ format: 'date-time', description: "the tag's first page view of the visitor" }).optional(),
    last_seen: timestamp.meta({ format: 'date-time', description: "the tag's last page view or engagement of the visitor" }).optional(),
    last_page: z.string().meta({ description: "the path of the visitor's last page view (no query)" }).optional(),
    engaged_seconds: z.int().min(0).meta({ description: 'time on page reported by the tag, in total' }).optional(),
    identified_by: z
      .strictObject({
        method: z.enum(IDENTIFIED_BY_METHODS),
        at: timestamp.meta({ format: 'date-time' }),
        confidence: z.number().min(0).max(1).optional(),
        verified: z.boolean().optional(),
      })
      .meta({
        description:
          "how, when and how surely the visitor was tied to a person or a company: method identify (verified, with the site's hash: confidence 1; unverified, a claim: 0.7), email_link (1, verified), import (1, verified), form (0.6, a claim), ip_company (0.5: the company behind the address; the person's fields absent). verified is true for a verified person identification, false for a claim anyone with the site key could make",
      })
      .optional(),
    network: networkSchema.optional(),
    location: visitorLocationSchema.optional(),
    company_profile: companyRecordSchema
      .meta({
        description: "the firmographics of the company the visitor counts for (a work email's domain, else its network's company), when a record exists",
      })
      .optional(),
    intent: intentSchema
      .meta({ description: "beyond the interface's fields: the visitor's intent score now and the reason for every point (a visitor seen by the site tag)" })
      .optional(),
  })
  .meta({
    id: 'VisitorDetails',
    description:
      "All fields are strings and none is required, so a field the person lacks is left out. The page-view fields the interface does not show are present when the visitor has page-view data: page_views and last_seen_at for an imported visitor; page_views, sessions, first_seen, last_seen, last_page, engaged_seconds and identified_by for one seen by the site tag (with the person's fields once it is identified), and its network, location and company_profile when its address was located.",
  });

export type EnrichedRecord = z.infer<typeof enrichedRecordSchema>;
export type VisitorDetails = z.infer<typeof visitorDetailsSchema>;
export type Unshown = z.infer<typeof unshown>;
export type Profile = EnrichedRecord['profile'];
export type Traits = EnrichedRecord['traits'];
export type Social = EnrichedRecord['social'];
export type SocialProfile = z.infer<typeof socialProfile>;
export type Company = EnrichedRecord['company'];
export type Organization = z.infer<typeof organizationSchema>;
export type FundingEvent = Organization['funding_events'][number];
export type Job = EnrichedRecord['job'];
export type Location = z.infer<typeof locationSchema>;
export type CompanyLocation = z.infer<typeof companyLocationSchema>;
export type ExperienceLocation = z.infer<typeof experienceLocationSchema>;
export type Experience = z.infer<typeof experienceSchema>;
