// Visitors: the latest visitors seen by the account's sites' tags, refreshed while the tab is
// shown, filtered by identified/anonymous; #/visitors?visitor=… opens one (visitor-detail.ts).
import { api } from '../api';
import type { List, VisitorRow } from '../api-types';
import { compact, field, loading, pageHeading, table } from '../components';
import { h, type Child } from '../dom';
import { confidence, dateTimeSeconds, duration, network, place, recentTime, when } from '../format';
import { action } from '../messages';
import { poll } from '../poll';
import { companyHref } from './company-filters';
import { showVisitor } from './visitor-detail';
import { scoreCell } from '../intent';

const VISITORS_POLL_MS = 10_000;
const VISITORS_LIMIT = 50;

/** The filter's value in the address, its label, and the API's `identified` parameter for it. */
const VISITOR_FILTERS: readonly (readonly [value: string, label: string, identified: string | null])[] = [
  ['all', 'All visitors', null],
  ['identified', 'Identified', 'true'],
  ['anonymous', 'Anonymous', 'false'],
];

/** The list's orders: the latest seen (identified first), or the highest intent score now. */
const VISITOR_SORTS: readonly (readonly [value: string, label: string])[] = [
  ['last_seen', 'Last seen'],
  ['score', 'Intent score'],
];

const visitorHref = (id: string, filter: string): string => `#/visitors?${new URLSearchParams({ ...(filter !== 'all' ? { filter } : {}), visitor: id })}`;

// The company a visitor counts for, by its key (a domain, or a name lower-cased when the data has
// no domain): the address's company name where that is the key.
function companyName(v: VisitorRow, key: string): string {
  const name = v.company;
  return name && name.toLowerCase() === key ? name : key;
}

/** The list's columns: the visitor (its link), then what it did and who it is. */
const VISITOR_COLUMNS = [
  'Visitor',
  'Score',
  'Email',
  'Page views',
  'Sessions',
  'Engaged time',
  'Last page',
  'First seen',
  'Last seen',
  'Identified by',
  'Company',
  'Network and location',
];

/** What the page's steps share: the filter and order chosen, and the parts they refill. */
interface VisitorsPage {
  filter: string;
  sort: string;
  results: HTMLElement;
  detail: HTMLElement;
  updated: HTMLElement;
}

export async function visitorsPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const wantedFilter = params.get('filter');
  const page: VisitorsPage = {
    filter: VISITOR_FILTERS.find(([v]) => v === wantedFilter)?.[0] ?? 'all',
    sort: params.get('sort') === 'score' ? 'score' : 'last_seen',
    results: h('div', {}, loading()),
    detail: h('div'),
    updated: h('p', { class: 'muted', id: 'visitors-updated' }),
  };
  // The filter and the order are kept in the address, so a reload or a visitor's Close link comes back to them.
  const filterSelect = choiceSelect(page, VISITOR_FILTERS, page.filter, (value) => (page.filter = value));
  const sortSelect = choiceSelect(page, VISITOR_SORTS, page.sort, (value) => (page.sort = value));
  const poller = poll(
    page.results,
    () => load(page),
    () => VISITORS_POLL_MS,
  );
  root.append(
    ...pageHeading(
      'Visitors',
      `The ${VISITORS_LIMIT} latest visitors seen by your sites’ tags: identified ones first, then the most recently seen. Open one to see why it was identified.`,
    ),
    page.detail,
    h('div', { class: 'filters' }, field('visitors-filter', 'Show', filterSelect), field('visitors-sort', 'Sort by', sortSelect)),
    h('div', { class: 'actions' }, page.updated, h('button', { type: 'button', class: 'secondary', onclick: action(async () => poller.now()) }, 'Refresh now')),
    page.results,
  );
  const wanted = params.get('visitor');
  if (wanted) await showVisitor(page.detail, wanted, page.filter);
}

// The list's address: the filter and the order, each only when it is not the default.
function address({ filter, sort }: VisitorsPage): string {
  const q = new URLSearchParams({ ...(filter !== 'all' ? { filter } : {}), ...(sort === 'score' ? { sort } : {}) }).toString();
  return q ? `#/visitors?${q}` : '#/visitors';
}

// A select of the filter or the order (`choose` keeps the choice): a change goes into the address,
// closes the visitor shown and loads the list again.
function choiceSelect(
  page: VisitorsPage,
  choices: readonly (readonly [value: string, label: string, ...rest: unknown[]])[],
  current: string,
  choose: (value: string) => void,
): HTMLSelectElement {
  const select = h(
    'select',
    {
      onchange: action(async () => {
        choose(select.value);
        history.replaceState(null, '', address(page));
        page.detail.replaceChildren();
        page.results.replaceChildren(loading());
        await load(page);
      }),
    },
    choices.map(([value, label]) => h('option', { value, selected: value === current }, label)),
  );
  return select;
}

// The list as filtered and ordered, or the line that says there is none; false once the page is left.
async function load(page: VisitorsPage): Promise<boolean> {
  const identified = VISITOR_FILTERS.find(([v]) => v === page.filter)?.[2];
  const query = new URLSearchParams({
    limit: String(VISITORS_LIMIT),
    ...(identified ? { identified } : {}),
    ...(page.sort === 'score' ? { sort: page.sort } : {}),
  });
  const { items } = await api<List<VisitorRow>>('GET', `visitors?${query}`);
  if (!page.results.isConnected) return false;
  const { filter, sort } = page;
  const empty = filter === 'all' ? 'No visitors yet. Install a site’s tag (Sites) and they appear here.' : `No ${filter} visitors yet.`;
  page.results.replaceChildren(
    items.length
      ? h(
          'div',
          { class: 'table-scroll' },
          compact(
            table(
              sort === 'score' ? 'Visitors by intent score' : 'Latest visitors',
              VISITOR_COLUMNS,
              items.map((v) => visitorRow(v, filter)),
              [1, 3, 4, 5],
            ),
          ),
        )
      : h('p', {}, empty),
  );
  page.updated.replaceChildren(
    'Updated ',
    when(new Date().toISOString(), '–', dateTimeSeconds),
    `; refreshes every ${VISITORS_POLL_MS / 1000} seconds while this tab is shown.`,
  );
  return true;
}

// One visitor's row; its link keeps the list's `filter` for the Close link.
function visitorRow(v: VisitorRow, filter: string): Child[] {
  return [
    h('a', { href: visitorHref(v.id, filter), 'aria-label': `Open visitor ${v.id}` }, h('code', {}, v.id)),
    scoreCell(v.intent),
    v.email ?? (v.company ? ['anonymous, ', h('span', { class: 'company' }, v.company)] : h('span', { class: 'muted' }, 'anonymous')),
    String(v.pageViews),
    String(v.sessions),
    duration(v.engagedSeconds),
    v.lastPage ? h('code', { class: 'wrap' }, v.lastPage) : '–',
    when(v.firstSeen, '–', recentTime),
    when(v.lastSeen, '–', recentTime),
    identifiedByCell(v.identifiedBy),
    v.companyKey ? h('a', { href: companyHref(v.companyKey) }, companyName(v, v.companyKey)) : '–',
    v.network || v.location ? [h('div', {}, network(v.network)), h('div', { class: 'muted' }, place(v.location))] : '–',
  ];
}

// "form, Nov 28 10:01, confidence 0.60, verified": how and when a visitor was identified.
function identifiedByCell(by: VisitorRow['identifiedBy']): Child {
  return by
    ? [
        by.method,
        ', ',
        when(by.at, '–', recentTime),
        typeof by.confidence === 'number' ? `, confidence ${confidence(by.confidence)}` : '',
        by.method !== 'ip_company' && typeof by.verified === 'boolean' ? (by.verified ? ', verified' : ', claimed') : '',
      ]
    : '–';
}
