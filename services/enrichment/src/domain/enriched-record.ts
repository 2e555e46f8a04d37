// The enriched record (spec §2.3) as TypeScript types. Every member and field is always present;
// a scalar is null when the data is absent, a list is empty. Fields the spec shows only as null
// (their type is not shown) are `Unshown`. The shape as data, the normalizer and the import
// check live beside this file and are re-exported here.
import type { JsonScalar, JsonValue } from './shape.js';

export { ENRICHED_RECORD_SHAPE, LOCATION_SHAPE, COMPANY_LOCATION_SHAPE, EXPERIENCE_LOCATION_SHAPE } from './enriched-record-shape.js';
export { checkShape, findNullTypedFields, type FieldShape, type ObjectShape, type CheckOptions } from './shape.js';
export { normalizeRecord, validateImportRecord, type ImportValidation } from './normalize-record.js';

/** A field the spec shows only as null: its type is not shown, so any JSON scalar is kept. */
export type Unshown = JsonScalar | null;

export interface Profile {
  id: string | null;
  alias: string | null;
  email: string | null;
}

export interface Traits {
  id: string | null;
  email: string | null;
  full_name: string | null;
  first_name: string | null;
  last_name: string | null;
  middle_initial: Unshown;
  middle_name: Unshown;
  work_email: string | null;
  recommended_personal_email: string | null;
  emails: { address: string | null; type: string | null }[];
  gender: string | null;
  birth_year: number | null;
  /** YYYY-MM-DD */
  birth_date: string | null;
  mobile_phone: string | null;
  phone_numbers: string[];
  industry: string | null;
  home_owner: Unshown;
  married: Unshown;
  children: Unshown;
  email_status: Unshown;
  extrapolated_email_confidence: Unshown;
  photo_url: string | null;
}

export interface SocialProfile {
  url: string | null;
  username: string | null;
}

export interface Social {
  pronet: { id: string | null } & SocialProfile;
  social1: SocialProfile;
  social2: SocialProfile;
  codehost: SocialProfile;
}

/** The location object of `experience[].company.location`: no city, state or last_updated. */
export interface ExperienceLocation {
  name: string | null;
  locality: string | null;
  metro: Unshown;
  region: string | null;
  country: string | null;
  continent: string | null;
  street_address: Unshown;
  address_line_2: Unshown;
  postal_code: Unshown;
  /** `<latitude>,<longitude>` */
  geo: string | null;
}

/** The location object of `company.location`. */
export interface CompanyLocation extends ExperienceLocation {
  city: string | null;
  state: string | null;
}

/** The top-level location object. */
export interface Location extends CompanyLocation {
  last_updated: Unshown;
}

export interface Company {
  name: string | null;
  /** A range label, e.g. "51-200". */
  size: string | null;
  founded: number | null;
  industry: string | null;
  description: string | null;
  /** A range label, e.g. "$10M-$50M". */
  revenue: string | null;
  phone_numbers: string[];
  website: string | null;
  pronet: { url: string | null; id: string | null };
  location: CompanyLocation;
}

export interface Organization {
  id: string | null;
  name: string | null;
  website_url: string | null;
  blog_url: string | null;
  startup_url: string | null;
  pronet_url: string | null;
  social2_url: string | null;
  social1_url: string | null;
  logo_url: string | null;
  funding_url: Unshown;
  primary_phone: { number: string | null; source: string | null; sanitized_number: string | null };
  languages: string[];
  traffic_ranking: Unshown;
  phone: string | null;
  sanitized_phone: string | null;
  pronet_uid: string | null;
  founded_year: number | null;
  publicly_traded_symbol: Unshown;
  publicly_traded_exchange: Unshown;
  primary_domain: string | null;
  sic_codes: string[];
  naics_codes: string[];
  industry: string | null;
  estimated_num_employees: number | null;
  keywords: string[];
  organization_revenue_printed: string | null;
  annual_revenue_printed: string | null;
  organization_revenue: number | null;
  annual_revenue: number | null;
  industries: string[];
  secondary_industries: string[];
  snippets_loaded: boolean | null;
  industry_tag_id: string | null;
  /** Industry name → tag identifier. */
  industry_tag_hash: Record<string, string>;
  retail_location_count: number | null;
  raw_address: string | null;
  street_address: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  owned_by_organization_id: string | null;
  owned_by_organization: { id: string | null; name: string | null; website_url: string | null };
  short_description: string | null;
  suborganizations: JsonValue[];
  num_suborganizations: number | null;
  total_funding: number | null;
  total_funding_printed: string | null;
  latest_funding_round_date: string | null;
  latest_funding_stage: string | null;
  funding_events: FundingEvent[];
  technology_names: string[];
  current_technologies: { uid: string | null; name: string | null; category: string | null }[];
  org_chart_root_people_ids: string[];
  org_chart_sector: string | null;
  org_chart_removed: boolean | null;
  org_chart_show_department_filter: boolean | null;
  organization_headcount_six_month_growth: Unshown;
  organization_headcount_twelve_month_growth: Unshown;
  organization_headcount_twenty_four_month_growth: Unshown;
}

export interface FundingEvent {
  id: string | null;
  /** A timestamp. */
  date: string | null;
  news_url: string | null;
  type: string | null;
  investors: string | null;
  amount: string | null;
  currency: string | null;
}

export interface Job {
  title: string | null;
  role: string | null;
  headline: string | null;
  seniority: string | null;
  sub_role: Unshown;
  title_levels: JsonValue[];
  income_range: string | null;
  net_worth: string | null;
  functions: string[];
  departments: string[];
  subdepartments: string[];
}

export interface Experience {
  company: {
    name: string | null;
    size: string | null;
    id: string | null;
    founded: number | null;
    industry: string | null;
    location: ExperienceLocation;
    pronet_url: string | null;
    pronet_id: string | null;
    social1_url: string | null;
    social2_url: string | null;
    website: string | null;
  };
  location_names: JsonValue[];
  /** YYYY-MM */
  start_date: string | null;
  /** YYYY-MM, or null for the current position. */
  end_date: string | null;
  title: { name: string | null; role: string | null; sub_role: Unshown; levels: JsonValue[] };
  is_primary: boolean | null;
}

export interface EnrichedRecord {
  profile: Profile;
  traits: Traits;
  social: Social;
  company: Company;
  organization: Organization;
  job: Job;
  location: Location;
  location_names: JsonValue[];
  street_addresses: JsonValue[];
  regions: JsonValue[];
  experience: Experience[];
  interests: JsonValue[];
  skills: JsonValue[];
  device: { type: string | null };
}
