// Companies, the page a marketer lands on: the companies behind the account's visitors in a window
// (GET /account/companies), filtered from a one-line form kept in the address, a page at a time
// with the API's cursor, downloadable as CSV; #/companies?company=… opens one (company-detail.ts).
import type { CompanyList, CompanySummary } from '@glimpse/api';
import { api, apiFile } from '../api';
import type { List, Site } from '../api-types';
import { compact, field, filtersForm, loading, pageHeading, saveFile, table } from '../components';
import { h, type Child } from '../dom';
import { count, place, recentTime, when } from '../format';
import { action, say } from '../messages';
import { scoreCell } from '../intent';
import { companyPage } from './company-detail';
import {
  NETWORK_TYPE_CHOICES,
  SORT_CHOICES,
  companyAddress,
  listAddress,
  listQuery,
  narrowed,
  readFilters,
  siteSelect,
  windowSelect,
  windowText,
  type CompanyFilters,
} from './company-filters';

const COMPANIES_LIMIT = 50;
const TOP_PAGES_SHOWN = 3;
const COLUMNS = ['Company', 'Score', 'Industry', 'Size', 'Location', 'Visitors', 'Identified', 'Page views', 'Visits', 'Last visit', 'Top pages (views)'];
const NUMERIC = [1, 5, 6, 7, 8];
// Employee ranges as company data usually labels them; the field takes any label.
const SIZE_LABELS = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+'];

export async function companiesPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const key = params.get('company');
  if (key) return companyPage(root, key, readFilters(params));
  const placeholder = loading();
  root.append(
    ...pageHeading(
      'Companies',
      'The companies behind your visitors: named from the network of a business, a school or a government office, or from an identified person’s work email. A visit is one session.',
    ),
    placeholder,
  );
  const { items: sites } = await api<List<Site>>('GET', 'sites');
  if (!root.isConnected) return;
  placeholder.remove();
  const list = companiesList(readFilters(params), sites);
  root.append(list.form, list.section);
  await list.load();
}

/** The list's filter inputs, filled from the filters in the address. */
interface FilterInputs {
  siteChoice: HTMLSelectElement;
  windowChoice: HTMLSelectElement;
  industry: HTMLInputElement;
  size: HTMLInputElement;
  country: HTMLInputElement;
  networkType: HTMLSelectElement;
  minVisits: HTMLInputElement;
  sort: HTMLSelectElement;
}

/** The list's state: its filters, the page shown, and the elements a load fills. */
interface CompaniesView {
  filters: CompanyFilters;
  // The cursors of the pages shown so far: [null] is the first page; the last is the page shown.
  cursors: (string | null)[];
  next: string | null;
  heading: HTMLElement;
  results: HTMLElement;
  pager: HTMLElement;
}

// The filters form and the list's section, with the load that fills the section.
function companiesList(initial: CompanyFilters, sites: readonly Site[]): { form: HTMLFormElement; section: HTMLElement; load: () => Promise<void> } {
  const inputs = filterInputs(initial, sites);
  const view: CompaniesView = {
    filters: initial,
    cursors: [null],
    next: null,
    heading: h('h2', { tabindex: '-1', id: 'companies-heading' }, `Companies in ${windowText(initial)}`),
    results: h('div', {}, loading()),
    pager: h('div', { class: 'actions pager' }),
  };
  const form = companyFiltersForm(
    inputs,
    action(async () => {
      view.filters = filtersOf(inputs);
      history.replaceState(null, '', listAddress(view.filters)); // linkable, without drawing the page again
      view.cursors = [null];
      view.results.replaceChildren(loading());
      await loadCompanies(view);
    }),
  );
  return { form, section: companiesSection(view), load: () => loadCompanies(view) };
}

// The filter inputs, each showing its filter's value.
function filterInputs(filters: CompanyFilters, sites: readonly Site[]): FilterInputs {
  return {
    siteChoice: siteSelect(sites, filters),
    windowChoice: windowSelect(filters),
    industry: h('input', { type: 'text', value: filters.industry, autocomplete: 'off', class: 'short' }),
    size: h('input', { type: 'text', value: filters.size, autocomplete: 'off', list: 'company-sizes', class: 'short' }),
    country: h('input', {
      type: 'text',
      value: filters.country,
      autocomplete: 'off',
      class: 'code',
      maxlength: 2,
      pattern: '[A-Za-z]{2}',
      title: 'Two letters, e.g. GB',
      placeholder: 'GB',
    }),
    networkType: h(
      'select',
      {},
      NETWORK_TYPE_CHOICES.map(([value, label]) => h('option', { value, selected: value === filters.networkType }, label)),
    ),
    minVisits: h('input', { type: 'number', min: 1, step: 1, value: filters.minVisits || '', inputmode: 'numeric' }),
    sort: h(
      'select',
      {},
      SORT_CHOICES.map(([value, label]) => h('option', { value, selected: value === filters.sort }, label)),
    ),
  };
}

// The filters as the inputs say, read as the address would be.
function filtersOf(inputs: FilterInputs): CompanyFilters {
  return readFilters(
    new URLSearchParams({
      site: inputs.siteChoice.value,
      days: inputs.windowChoice.value,
      industry: inputs.industry.value,
      size: inputs.size.value,
      country: inputs.country.value,
      network_type: inputs.networkType.value,
      min_visits: inputs.minVisits.value,
      sort: inputs.sort.value,
    }),
  );
}

// The one-line form of the filter inputs, with the size labels offered.
function companyFiltersForm(inputs: FilterInputs, onsubmit: (event?: Event) => Promise<void>): HTMLFormElement {
  const form = filtersForm(
    onsubmit,
    'Show companies',
    field('companies-site', 'Site', inputs.siteChoice),
    field('companies-window', 'Window', inputs.windowChoice),
    field('companies-industry', 'Industry', inputs.industry),
    field('companies-size', 'Size', inputs.size),
    h(
      'datalist',
      { id: 'company-sizes' },
      SIZE_LABELS.map((label) => h('option', { value: label })),
    ),
    field('companies-country', 'Country', inputs.country),
    field('companies-network', 'Network', inputs.networkType),
    field('companies-min-visits', 'Minimum visits', inputs.minVisits),
    field('companies-sort', 'Sort by', inputs.sort),
  );
  form.classList.add('company-filters');
  form.setAttribute('aria-label', 'Filter companies');
  return form;
}

// The list's section: its heading beside the CSV download, the results, the pager.
function companiesSection(view: CompaniesView): HTMLElement {
  const download = h('button', { type: 'button', class: 'secondary', onclick: action(() => downloadCsv(view.filters)) }, 'Download CSV');
  return h(
    'section',
    { 'aria-labelledby': 'companies-heading' },
    h('div', { class: 'actions section-head' }, view.heading, download),
    view.results,
    view.pager,
  );
}

// The page of companies at the last cursor, with its heading and pager buttons.
async function loadCompanies(view: CompaniesView): Promise<void> {
  const cursor = view.cursors.at(-1) ?? null;
  const query = listQuery(view.filters);
  query.set('limit', String(COMPANIES_LIMIT));
  if (cursor) query.set('cursor', cursor);
  const page = await api<CompanyList>('GET', `companies?${query}`);
  // The results stay in the section: when they are gone, so is the page.
  if (!view.results.isConnected) return;
  view.next = page.nextCursor;
  const number = view.cursors.length;
  view.heading.replaceChildren(`Companies in ${windowText(view.filters)}`, number > 1 ? `, page ${number}` : '');
  view.results.replaceChildren(
    page.items.length
      ? h(
          'div',
          { class: 'table-scroll' },
          compact(
            table(
              `Companies in ${windowText(view.filters)}`,
              COLUMNS,
              page.items.map((c) => companyRow(c, view.filters)),
              NUMERIC,
            ),
          ),
        )
      : h('p', {}, emptyText(view)),
  );
  view.pager.replaceChildren(
    number > 1 ? h('button', { type: 'button', class: 'secondary', onclick: action(() => turn(view, -1)) }, 'Previous page') : '',
    view.next ? h('button', { type: 'button', class: 'secondary', onclick: action(() => turn(view, 1)) }, 'Next page') : '',
  );
}

// Another page: the heading takes focus, so keyboard and screen-reader users start at its top.
async function turn(view: CompaniesView, by: 1 | -1): Promise<void> {
  if (by === 1 && view.next) view.cursors = [...view.cursors, view.next];
  else if (by === -1) view.cursors = view.cursors.slice(0, -1);
  await loadCompanies(view);
  view.heading.focus();
  say(`Page ${view.cursors.length} of the companies.`);
}

// The filtered list as a CSV file.
async function downloadCsv(filters: CompanyFilters): Promise<void> {
  const { blob, name } = await apiFile(`companies.csv?${listQuery(filters)}`, 'companies.csv');
  saveFile(blob, name);
  say(`Downloading ${name}.`);
}

// What an empty page says: the end of the list, no match for the filters, or no company yet.
function emptyText({ cursors, filters }: CompaniesView): string {
  if (cursors.length > 1) return 'No more companies.';
  if (narrowed(filters)) return `No company matches these filters in ${windowText(filters)}.`;
  return `No companies in ${windowText(filters)} yet. Companies appear when visitors come from a business, school or government network, or when an identified visitor’s email is at a company’s domain.`;
}

// One company's row, its name linking to its page with the list's filters.
function companyRow(c: CompanySummary, filters: CompanyFilters): Child[] {
  return [
    [h('a', { href: companyAddress(c.key, filters) }, c.name), c.domain ? h('div', {}, h('code', { class: 'muted nowrap' }, c.domain)) : ''],
    scoreCell(c.intent),
    c.firmographics?.industry ?? '–',
    h('span', { class: 'nowrap' }, c.firmographics?.size ?? '–'),
    place(c.location),
    count(c.visitors),
    count(c.identified),
    count(c.page_views),
    count(c.sessions),
    when(c.last_visit, '–', recentTime),
    topPages(c),
  ];
}

function topPages(c: CompanySummary): Child {
  if (!c.top_pages.length) return '–';
  return h(
    'ul',
    { class: 'plain' },
    c.top_pages
      .slice(0, TOP_PAGES_SHOWN)
      .map((p) => h('li', {}, h('code', { class: 'wrap' }, p.path), ' ', h('span', { class: 'muted' }, `(${count(p.views)})`))),
  );
}
