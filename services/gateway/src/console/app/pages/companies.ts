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

function companiesList(initial: CompanyFilters, sites: readonly Site[]): { form: HTMLFormElement; section: HTMLElement; load: () => Promise<void> } {
  let filters = initial;
  // The cursors of the pages shown so far: [null] is the first page; the last is the page shown.
  let cursors: (string | null)[] = [null];
  let next: string | null = null;

  const siteChoice = siteSelect(sites, filters);
  const windowChoice = windowSelect(filters);
  const industry = h('input', { type: 'text', value: filters.industry, autocomplete: 'off', class: 'short' });
  const size = h('input', { type: 'text', value: filters.size, autocomplete: 'off', list: 'company-sizes', class: 'short' });
  const country = h('input', {
    type: 'text',
    value: filters.country,
    autocomplete: 'off',
    class: 'code',
    maxlength: 2,
    pattern: '[A-Za-z]{2}',
    title: 'Two letters, e.g. GB',
    placeholder: 'GB',
  });
  const networkType = h(
    'select',
    {},
    NETWORK_TYPE_CHOICES.map(([value, label]) => h('option', { value, selected: value === filters.networkType }, label)),
  );
  const minVisits = h('input', { type: 'number', min: 1, step: 1, value: filters.minVisits || '', inputmode: 'numeric' });
  const sort = h(
    'select',
    {},
    SORT_CHOICES.map(([value, label]) => h('option', { value, selected: value === filters.sort }, label)),
  );
  const form = filtersForm(
    action(async () => {
      filters = readFilters(
        new URLSearchParams({
          site: siteChoice.value,
          days: windowChoice.value,
          industry: industry.value,
          size: size.value,
          country: country.value,
          network_type: networkType.value,
          min_visits: minVisits.value,
          sort: sort.value,
        }),
      );
      history.replaceState(null, '', listAddress(filters)); // linkable, without drawing the page again
      cursors = [null];
      results.replaceChildren(loading());
      await load();
    }),
    'Show companies',
    field('companies-site', 'Site', siteChoice),
    field('companies-window', 'Window', windowChoice),
    field('companies-industry', 'Industry', industry),
    field('companies-size', 'Size', size),
    h(
      'datalist',
      { id: 'company-sizes' },
      SIZE_LABELS.map((label) => h('option', { value: label })),
    ),
    field('companies-country', 'Country', country),
    field('companies-network', 'Network', networkType),
    field('companies-min-visits', 'Minimum visits', minVisits),
    field('companies-sort', 'Sort by', sort),
  );
  form.classList.add('company-filters');
  form.setAttribute('aria-label', 'Filter companies');

  const heading = h('h2', { tabindex: '-1', id: 'companies-heading' }, `Companies in ${windowText(filters)}`);
  const results = h('div', {}, loading());
  const pager = h('div', { class: 'actions pager' });
  const download = h('button', { type: 'button', class: 'secondary', onclick: action(downloadCsv) }, 'Download CSV');
  const section = h('section', { 'aria-labelledby': 'companies-heading' }, h('div', { class: 'actions section-head' }, heading, download), results, pager);

  async function load(): Promise<void> {
    const cursor = cursors.at(-1) ?? null;
    const query = listQuery(filters);
    query.set('limit', String(COMPANIES_LIMIT));
    if (cursor) query.set('cursor', cursor);
    const page = await api<CompanyList>('GET', `companies?${query}`);
    if (!section.isConnected) return;
    next = page.nextCursor;
    const number = cursors.length;
    heading.replaceChildren(`Companies in ${windowText(filters)}`, number > 1 ? `, page ${number}` : '');
    results.replaceChildren(
      page.items.length
        ? h('div', { class: 'table-scroll' }, compact(table(`Companies in ${windowText(filters)}`, COLUMNS, page.items.map(companyRow), NUMERIC)))
        : h('p', {}, emptyText()),
    );
    pager.replaceChildren(
      number > 1 ? h('button', { type: 'button', class: 'secondary', onclick: action(() => turn(-1)) }, 'Previous page') : '',
      next ? h('button', { type: 'button', class: 'secondary', onclick: action(() => turn(1)) }, 'Next page') : '',
    );
  }

  // Another page: the heading takes focus, so keyboard and screen-reader users start at its top.
  async function turn(by: 1 | -1) {
    if (by === 1 && next) cursors = [...cursors, next];
    else if (by === -1) cursors = cursors.slice(0, -1);
    await load();
    heading.focus();
    say(`Page ${cursors.length} of the companies.`);
  }

  async function downloadCsv() {
    const { blob, name } = await apiFile(`companies.csv?${listQuery(filters)}`, 'companies.csv');
    saveFile(blob, name);
    say(`Downloading ${name}.`);
  }

  function emptyText(): string {
    if (cursors.length > 1) return 'No more companies.';
    if (narrowed(filters)) return `No company matches these filters in ${windowText(filters)}.`;
    return `No companies in ${windowText(filters)} yet. Companies appear when visitors come from a business, school or government network, or when an identified visitor’s email is at a company’s domain.`;
  }

  function companyRow(c: CompanySummary): Child[] {
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

  return { form, section, load };
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
