// The companies view's filters: read from the address (#/companies?…), written back to it so a
// reload, a link or a company's Back link comes back to them, and turned into the API's query
// (GET /account/companies, its CSV, and one company). The choices are typed by the API's contract.
import type { COMPANY_SORTS, COMPANY_WINDOW_DAYS_DEFAULT, CompanySummary } from '@glimpse/api';
import type { Site } from '../api-types';
import { h } from '../dom';

export type CompanySort = (typeof COMPANY_SORTS)[number];
export type CompanyNetworkType = NonNullable<CompanySummary['network_type']>;

const DAY_MS = 86_400_000;
const DEFAULT_DAYS: typeof COMPANY_WINDOW_DAYS_DEFAULT = 30;
export const WINDOW_DAYS: readonly number[] = [7, DEFAULT_DAYS, 90];

/** The network types that name a company, with their labels ('' is any). */
export const NETWORK_TYPE_CHOICES: readonly (readonly [value: CompanyNetworkType | '', label: string])[] = [
  ['', 'Any'],
  ['business', 'Business'],
  ['education', 'Education'],
  ['government', 'Government'],
];
export const SORT_CHOICES: readonly (readonly [value: CompanySort, label: string])[] = [
  ['last_visit', 'Last visit'],
  ['page_views', 'Page views'],
  ['score', 'Intent score'],
];

export interface CompanyFilters {
  /** A site's id, or '' for every site. */
  site: string;
  days: number;
  industry: string;
  size: string;
  /** ISO 3166-1 alpha-2, upper case, or ''. */
  country: string;
  networkType: CompanyNetworkType | '';
  /** Sessions at least; 0 is no minimum. */
  minVisits: number;
  sort: CompanySort;
}

const text = (params: URLSearchParams, name: string) => (params.get(name) ?? '').trim();

export function readFilters(params: URLSearchParams): CompanyFilters {
  const days = Number(params.get('days'));
  const minVisits = Number(params.get('min_visits'));
  const networkType = NETWORK_TYPE_CHOICES.find(([value]) => value === params.get('network_type'))?.[0] ?? '';
  return {
    site: text(params, 'site'),
    days: WINDOW_DAYS.includes(days) ? days : DEFAULT_DAYS,
    industry: text(params, 'industry'),
    size: text(params, 'size'),
    country: text(params, 'country').toUpperCase(),
    networkType,
    minVisits: Number.isInteger(minVisits) && minVisits > 0 ? minVisits : 0,
    sort: SORT_CHOICES.find(([value]) => value === params.get('sort'))?.[0] ?? 'last_visit',
  };
}

// The filters that differ from the defaults, by the API's names (days aside: the address keeps the
// window, not its dates, so a link stays "the last 30 days").
function chosen(f: CompanyFilters): Record<string, string> {
  return {
    ...(f.site ? { site: f.site } : {}),
    ...(f.days !== DEFAULT_DAYS ? { days: String(f.days) } : {}),
    ...(f.industry ? { industry: f.industry } : {}),
    ...(f.size ? { size: f.size } : {}),
    ...(f.country ? { country: f.country } : {}),
    ...(f.networkType ? { network_type: f.networkType } : {}),
    ...(f.minVisits ? { min_visits: String(f.minVisits) } : {}),
    ...(f.sort !== 'last_visit' ? { sort: f.sort } : {}),
  };
}

/** Whether anything narrows the list (the window and the sort do not). */
export const narrowed = (f: CompanyFilters): boolean => Boolean(f.site || f.industry || f.size || f.country || f.networkType || f.minVisits);

export function listAddress(f: CompanyFilters): string {
  const query = new URLSearchParams(chosen(f)).toString();
  return query ? `#/companies?${query}` : '#/companies';
}

/** One company's page, keeping the list's filters for its Back link. */
export const companyAddress = (key: string, f: CompanyFilters): string => `#/companies?${new URLSearchParams({ company: key, ...chosen(f) })}`;

/** The window's start: `days` before now. */
export const since = (f: CompanyFilters, now = Date.now()): string => new Date(now - f.days * DAY_MS).toISOString();

/** GET /account/companies and companies.csv: the site, the window and the filters. */
export function listQuery(f: CompanyFilters): URLSearchParams {
  const { days: _days, ...rest } = chosen(f);
  return new URLSearchParams({ ...rest, since: since(f), sort: f.sort });
}

/** GET /account/companies/{key}: the site and the window only. */
export const companyQuery = (f: CompanyFilters): URLSearchParams => new URLSearchParams({ ...(f.site ? { site: f.site } : {}), since: since(f) });

/** "the last 30 days" */
export const windowText = (f: CompanyFilters): string => `the last ${f.days} days`;

/** The site choice: every site, or one. */
export const siteSelect = (sites: readonly Site[], f: CompanyFilters): HTMLSelectElement =>
  h(
    'select',
    {},
    h('option', { value: '', selected: !f.site }, 'All sites'),
    sites.map((s) => h('option', { value: s.id, selected: s.id === f.site }, s.name)),
  );

export const windowSelect = (f: CompanyFilters): HTMLSelectElement =>
  h(
    'select',
    {},
    WINDOW_DAYS.map((days) => h('option', { value: String(days), selected: days === f.days }, `Last ${days} days`)),
  );

/** A company's page with the default filters (from a visitor). */
export const companyHref = (key: string): string => companyAddress(key, readFilters(new URLSearchParams()));
