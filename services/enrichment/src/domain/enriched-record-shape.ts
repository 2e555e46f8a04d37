// The enriched record of spec §2.3, field by field, as data: what the response must look like.
// Fields appear in the spec's order, which is also the order of the keys in a response.
import { f } from './shape.js';

// The location object has three variants (spec §2.3): the top-level one has last_updated, the
// company's has city and state but no last_updated, the experience company's has neither.
const locationName = { name: f.string() };
const cityAndState = { city: f.string(), state: f.string() };
const locationRest = {
  locality: f.string(),
  metro: f.nullInShape,
  region: f.string(),
  country: f.string(),
  continent: f.string(),
  street_address: f.nullInShape,
  address_line_2: f.nullInShape,
  postal_code: f.nullInShape,
  geo: f.string('geo'),
};

export const LOCATION_SHAPE = f.object({ ...locationName, ...cityAndState, ...locationRest, last_updated: f.nullInShape });
export const COMPANY_LOCATION_SHAPE = f.object({ ...locationName, ...cityAndState, ...locationRest });
export const EXPERIENCE_LOCATION_SHAPE = f.object({ ...locationName, ...locationRest });

const profile = f.object({
  id: f.string('object-id'),
  alias: f.string(),
  email: f.string('email'),
});

const traits = f.object({
  id: f.string(),
  email: f.string(),
  full_name: f.string(),
  first_name: f.string(),
  last_name: f.string(),
  middle_initial: f.nullInShape,
  middle_name: f.nullInShape,
  work_email: f.string(),
  recommended_personal_email: f.string(),
  emails: f.objectArray({ address: f.string(), type: f.string() }),
  gender: f.string(),
  birth_year: f.integer,
  birth_date: f.string('date'),
  mobile_phone: f.string(),
  phone_numbers: f.stringArray,
  industry: f.string(),
  home_owner: f.nullInShape,
  married: f.nullInShape,
  children: f.nullInShape,
  email_status: f.nullInShape,
  extrapolated_email_confidence: f.nullInShape,
  photo_url: f.string('uri'),
});

const social = f.object({
  pronet: f.object({ id: f.string(), url: f.string(), username: f.string() }),
  social1: f.object({ url: f.string(), username: f.string() }),
  social2: f.object({ url: f.string(), username: f.string() }),
  codehost: f.object({ url: f.string(), username: f.string() }),
});

const company = f.object({
  name: f.string(),
  size: f.string(),
  founded: f.integer,
  industry: f.string(),
  description: f.string(),
  revenue: f.string(),
  phone_numbers: f.stringArray,
  website: f.string(),
  pronet: f.object({ url: f.string(), id: f.string() }),
  location: COMPANY_LOCATION_SHAPE,
});

const organization = f.object({
  id: f.string(),
  name: f.string(),
  website_url: f.string(),
  blog_url: f.string(),
  startup_url: f.string(),
  pronet_url: f.string(),
  social2_url: f.string(),
  social1_url: f.string(),
  logo_url: f.string(),
  funding_url: f.nullInShape,
  primary_phone: f.object({ number: f.string(), source: f.string(), sanitized_number: f.string() }),
  languages: f.stringArray,
  traffic_ranking: f.nullInShape,
  phone: f.string(),
  sanitized_phone: f.string(),
  pronet_uid: f.string(),
  founded_year: f.integer,
  publicly_traded_symbol: f.nullInShape,
  publicly_traded_exchange: f.nullInShape,
  primary_domain: f.string(),
  sic_codes: f.stringArray,
  naics_codes: f.stringArray,
  industry: f.string(),
  estimated_num_employees: f.integer,
  keywords: f.stringArray,
  organization_revenue_printed: f.string(),
  annual_revenue_printed: f.string(),
  organization_revenue: f.integer,
  annual_revenue: f.integer,
  industries: f.stringArray,
  secondary_industries: f.stringArray,
  snippets_loaded: f.boolean,
  industry_tag_id: f.string(),
  industry_tag_hash: f.stringMap,
  retail_location_count: f.integer,
  raw_address: f.string(),
  street_address: f.string(),
  city: f.string(),
  state: f.string(),
  postal_code: f.string(),
  country: f.string(),
  owned_by_organization_id: f.string(),
  owned_by_organization: f.object({ id: f.string(), name: f.string(), website_url: f.string() }),
  short_description: f.string(),
  suborganizations: f.array,
  num_suborganizations: f.integer,
  total_funding: f.integer,
  total_funding_printed: f.string(),
  latest_funding_round_date: f.string('timestamp'),
  latest_funding_stage: f.string(),
  funding_events: f.objectArray({
    id: f.string(),
    date: f.string('timestamp'),
    news_url: f.string(),
    type: f.string(),
    investors: f.string(),
    amount: f.string(),
    currency: f.string(),
  }),
  technology_names: f.stringArray,
  current_technologies: f.objectArray({ uid: f.string(), name: f.string(), category: f.string() }),
  org_chart_root_people_ids: f.stringArray,
  org_chart_sector: f.string(),
  org_chart_removed: f.boolean,
  org_chart_show_department_filter: f.boolean,
  organization_headcount_six_month_growth: f.nullInShape,
  organization_headcount_twelve_month_growth: f.nullInShape,
  organization_headcount_twenty_four_month_growth: f.nullInShape,
});

const job = f.object({
  title: f.string(),
  role: f.string(),
  headline: f.string(),
  seniority: f.string(),
  sub_role: f.nullInShape,
  title_levels: f.array,
  income_range: f.string(),
  net_worth: f.string(),
  functions: f.stringArray,
  departments: f.stringArray,
  subdepartments: f.stringArray,
});

const experience = f.objectArray({
  company: f.object({
    name: f.string(),
    size: f.string(),
    id: f.string(),
    founded: f.integer,
    industry: f.string(),
    location: EXPERIENCE_LOCATION_SHAPE,
    pronet_url: f.string(),
    pronet_id: f.string(),
    social1_url: f.string(),
    social2_url: f.string(),
    website: f.string(),
  }),
  location_names: f.array,
  start_date: f.string('year-month'),
  // null means the position is current (spec §2.3), so a null here is data, not absence.
  end_date: f.string('year-month'),
  title: f.object({ name: f.string(), role: f.string(), sub_role: f.nullInShape, levels: f.array }),
  is_primary: f.boolean,
});

/** The whole §2.3 record. Members in the order the spec lists them. */
export const ENRICHED_RECORD_SHAPE = f.object({
  profile,
  traits,
  social,
  company,
  organization,
  job,
  location: LOCATION_SHAPE,
  location_names: f.array,
  street_addresses: f.array,
  regions: f.array,
  experience,
  interests: f.array,
  skills: f.array,
  device: f.object({ type: f.string() }),
});
