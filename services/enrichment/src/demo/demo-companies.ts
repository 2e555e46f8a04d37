// Synthetic companies for the demo people: the index-th company of a seed is always the same, so
// every employee of one company carries the same organization data.
import type { Company, CompanyLocation, Experience, ExperienceLocation, FundingEvent, Organization } from '../domain/enriched-record.js';
import { CITIES, COMPANY_PREFIXES, COMPANY_SIZES, FUNDING_STAGES, INVESTORS, SECTORS, TECHNOLOGIES, type City } from './demo-pools.js';
import { combineSeeds, objectIdFor, seededRandom, type Random } from './seeded-random.js';

export const COMPANY_COUNT = COMPANY_PREFIXES.length * SECTORS.length;

export interface DemoCompany {
  organization: Organization;
  hq: City;
  size: string;
  revenue: string;
}

export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/'/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** "12.5M", "850K", "1.2B": how funding and revenue are printed. */
export function printedAmount(amount: number): string {
  const [unit, size] = amount >= 1e9 ? ['B', 1e9] : amount >= 1e6 ? ['M', 1e6] : ['K', 1e3];
  return `${Number((amount / size).toFixed(1))}${unit}`;
}

export function locationName(city: City): string {
  return `${city.city}, ${city.state}, United States`;
}

export function experienceLocation(city: City): ExperienceLocation {
  return {
    name: locationName(city),
    locality: city.city,
    metro: null,
    region: city.state,
    country: 'United States',
    continent: 'North America',
    street_address: null,
    address_line_2: null,
    postal_code: null,
    geo: city.geo,
  };
}

export function companyLocation(city: City): CompanyLocation {
  const { name, ...rest } = experienceLocation(city);
  return { name, city: city.city, state: city.state, ...rest };
}

// Millions raised per round, by stage (Seed, Series A, …).
const ROUND_MILLIONS: readonly [number, number][] = [
  [0.5, 3],
  [5, 15],
  [15, 40],
  [30, 80],
  [50, 150],
];
const DAY_MS = 86_400_000;

function fundingHistory(random: Random, slug: string, salt: number, founded: number): { events: FundingEvent[]; total: number } {
  const rounds = random.int(1, FUNDING_STAGES.length - 1);
  const firstDay = Date.UTC(Math.max(founded + 1, 2005), 0, 1) / DAY_MS;
  const lastDay = Date.UTC(2025, 5, 1) / DAY_MS;
  const days = Array.from({ length: rounds }, () => random.int(firstDay, lastDay)).sort((a, b) => a - b);
  const amounts = days.map((_, i) => {
    const [min, max] = ROUND_MILLIONS[i]!;
    return random.int(min * 10, max * 10) * 100_000;
  });
  const events = days.map((day, i) => {
    const type = FUNDING_STAGES[i]!;
    const amount = printedAmount(amounts[i]!);
    return {
      id: objectIdFor('funding', salt, i),
      date: new Date(day * DAY_MS).toISOString(),
      news_url: `https://news.example.com/${slug}-raises-${amount.toLowerCase()}-${slugify(type)}`,
      type,
      investors: random.sample(INVESTORS, random.int(1, 3)).join(', '),
      amount,
      currency: 'USD',
    };
  });
  return { events, total: amounts.reduce((sum, a) => sum + a, 0) };
}

// Building a company is most of the cost of a person, and people share few companies.
const companies = new Map<string, DemoCompany>();

/** The index-th company (taken modulo COMPANY_COUNT) of a seed, built once and shared: read-only. */
export function companyAt(index: number, seed: number): DemoCompany {
  const key = `${seed >>> 0}:${index % COMPANY_COUNT}`;
  let company = companies.get(key);
  if (!company) {
    if (companies.size >= 10 * COMPANY_COUNT) companies.clear();
    company = buildCompany(index % COMPANY_COUNT, seed >>> 0);
    companies.set(key, company);
  }
  return company;
}

/** A deep copy of plain JSON data (several times faster than structuredClone here). */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = copyJson((value as Record<string, unknown>)[key]);
    return out as T;
  }
  return value;
}

/** The index-th company (taken modulo COMPANY_COUNT) of a seed, as a copy the caller may change. */
export function generateCompany(index: number, seed = 0): DemoCompany {
  return copyJson(companyAt(index, seed));
}

/** The organization's id, name and addresses on the web. */
function organizationLinks(seed: number, n: number, name: string, domain: string, slug: string) {
  return {
    id: objectIdFor('organization', seed, n),
    name,
    website_url: `https://www.${domain}`,
    blog_url: `https://blog.${domain}`,
    startup_url: `https://www.startup.example/organization/${slug}`,
    pronet_url: `https://www.pronet.example/company/${slug}`,
    social2_url: `https://www.social2.example/${slug}`,
    social1_url: `https://social1.example/${slug.replace(/-/g, '')}`,
    logo_url: `https://logos.glimpse.example/${domain}.png`,
    funding_url: null,
  } satisfies Partial<Organization>;
}

/** Where the organization is, and the holding that owns it. */
function organizationAddress(seed: number, n: number, street: string, hq: City, parent: string) {
  return {
    raw_address: `${street}, ${hq.city}, ${hq.stateCode} ${hq.postalCode}, United States`,
    street_address: street,
    city: hq.city,
    state: hq.state,
    postal_code: hq.postalCode,
    country: 'United States',
    owned_by_organization_id: objectIdFor('holding', seed, n % COMPANY_PREFIXES.length),
    owned_by_organization: {
      id: objectIdFor('holding', seed, n % COMPANY_PREFIXES.length),
      name: parent,
      website_url: `https://www.${slugify(parent).replace(/-/g, '')}.example`,
    },
  } satisfies Partial<Organization>;
}

/** Its funding, technologies and org chart. */
function organizationHistory(seed: number, n: number, funding: FundingEvent[], totalFunding: number, technologies: readonly (typeof TECHNOLOGIES)[number][]) {
  const latest = funding[funding.length - 1]!;
  return {
    total_funding: totalFunding,
    total_funding_printed: printedAmount(totalFunding),
    latest_funding_round_date: latest.date,
    latest_funding_stage: latest.type,
    funding_events: funding,
    technology_names: technologies.map((t) => t.name),
    current_technologies: technologies.map((t) => ({ ...t })),
    org_chart_root_people_ids: [objectIdFor('org-chart-root', seed, n)],
    org_chart_sector: 'OrgChart::SectorHierarchy::Rules::Default',
    org_chart_removed: false,
    org_chart_show_department_filter: true,
    organization_headcount_six_month_growth: null,
    organization_headcount_twelve_month_growth: null,
    organization_headcount_twenty_four_month_growth: null,
  } satisfies Partial<Organization>;
}

function buildCompany(n: number, seed: number): DemoCompany {
  const prefix = COMPANY_PREFIXES[n % COMPANY_PREFIXES.length]!;
  const sector = SECTORS[Math.floor(n / COMPANY_PREFIXES.length)]!;
  const random = seededRandom(combineSeeds(seed, n, 0xc0));
  const name = `${prefix} ${sector.suffix}`;
  const slug = slugify(name);
  const domain = `${slug.replace(/-/g, '')}.example`;
  const hq = random.pick(CITIES);
  const size = random.pick(COMPANY_SIZES);
  const founded = random.int(1985, 2021);
  const annualRevenue = random.int(size.revenueMin / 1000, size.revenueMax / 1000) * 1000;
  const { events: funding, total: totalFunding } = fundingHistory(random, slug, combineSeeds(seed, n), founded);
  const phoneLine = `555-01${String(n % 100).padStart(2, '0')}`;
  const street = `${random.int(10, 2999)} ${random.pick(['Market St', 'Main St', 'Congress Ave', 'Broadway', 'Pine St', 'Commerce Dr'])}`;
  const tagId = objectIdFor('industry-tag', seed, SECTORS.indexOf(sector));
  const parent = `${prefix} Holdings`;
  const technologies = random.sample(TECHNOLOGIES, random.int(4, 8));
  const organization: Organization = {
    ...organizationLinks(seed, n, name, domain, slug),
    primary_phone: { number: `+1 ${hq.areaCode}-${phoneLine}`, source: 'Account', sanitized_number: `+1${hq.areaCode}${phoneLine.replace('-', '')}` },
    languages: random.chance(0.3) ? ['English', 'Spanish'] : ['English'],
    traffic_ranking: null,
    phone: `+1 ${hq.areaCode}-${phoneLine}`,
    sanitized_phone: `+1${hq.areaCode}${phoneLine.replace('-', '')}`,
    pronet_uid: String(1_000_000 + n * 7919),
    founded_year: founded,
    publicly_traded_symbol: null,
    publicly_traded_exchange: null,
    primary_domain: domain,
    sic_codes: [sector.sicCode],
    naics_codes: [sector.naicsCode],
    industry: sector.industry,
    estimated_num_employees: random.int(size.min, size.max),
    keywords: [...sector.keywords],
    organization_revenue_printed: printedAmount(annualRevenue),
    annual_revenue_printed: printedAmount(annualRevenue),
    organization_revenue: annualRevenue,
    annual_revenue: annualRevenue,
    industries: [sector.industry],
    secondary_industries: [...sector.secondaryIndustries],
    snippets_loaded: true,
    industry_tag_id: tagId,
    industry_tag_hash: { [sector.industry]: tagId },
    retail_location_count: sector.suffix === 'Retail' ? random.int(1, 40) : 0,
    ...organizationAddress(seed, n, street, hq, parent),
    short_description: `${name} ${sector.does}.`,
    suborganizations: [],
    num_suborganizations: 0,
    ...organizationHistory(seed, n, funding, totalFunding, technologies),
  };
  return { organization, hq, size: size.label, revenue: size.revenue };
}

/** The top-level `company` member: the person's current employer in brief. */
export function companySummary({ organization: org, hq, size, revenue }: DemoCompany): Company {
  return {
    name: org.name,
    size,
    founded: org.founded_year,
    industry: org.industry,
    description: org.short_description,
    revenue,
    phone_numbers: [org.phone!],
    website: org.website_url,
    pronet: { url: org.pronet_url, id: org.pronet_uid },
    location: companyLocation(hq),
  };
}

/** The company of an `experience[]` element. */
export function experienceCompany({ organization: org, hq, size }: DemoCompany): Experience['company'] {
  return {
    name: org.name,
    size,
    id: org.id,
    founded: org.founded_year,
    industry: org.industry,
    location: experienceLocation(hq),
    pronet_url: org.pronet_url,
    pronet_id: org.pronet_uid,
    social1_url: org.social1_url,
    social2_url: org.social2_url,
    website: org.website_url,
  };
}
