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

export async function visitorsPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const results = h('div', {}, loading());
  const detail = h('div');
  const updated = h('p', { class: 'muted', id: 'visitors-updated' });
  const wantedFilter = params.get('filter');
  let filter = VISITOR_FILTERS.find(([v]) => v === wantedFilter)?.[0] ?? 'all';
  let sort = params.get('sort') === 'score' ? 'score' : 'last_seen';
  // The order is kept in the address with the filter.
  const address = () => {
    const q = new URLSearchParams({ ...(filter !== 'all' ? { filter } : {}), ...(sort === 'score' ? { sort } : {}) }).toString();
    return q ? `#/visitors?${q}` : '#/visitors';
  };
  const sortSelect = h(
    'select',
    {
      onchange: action(async () => {
        sort = sortSelect.value;
        history.replaceState(null, '', address());
        detail.replaceChildren();
        results.replaceChildren(loading());
        await load();
      }),
    },
    VISITOR_SORTS.map(([value, label]) => h('option', { value, selected: value === sort }, label)),
  );
  // The filter is kept in the address, so a reload or a visitor's Close link comes back to it.
  const filterSelect = h(
    'select',
    {
      onchange: action(async () => {
        filter = filterSelect.value;
        history.replaceState(null, '', address());
        detail.replaceChildren();
        results.replaceChildren(loading());
        await load();
      }),
    },
    VISITOR_FILTERS.map(([value, label]) => h('option', { value, selected: value === filter }, label)),
  );
  const columns = [
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
  const row = (v: VisitorRow): Child[] => [
    h('a', { href: visitorHref(v.id, filter), 'aria-label': `Open visitor ${v.id}` }, h('code', {}, v.id)),
    scoreCell(v.intent),
    v.email ?? (v.company ? ['anonymous, ', h('span', { class: 'company' }, v.company)] : h('span', { class: 'muted' }, 'anonymous')),
    String(v.pageViews),
    String(v.sessions),
    duration(v.engagedSeconds),
    v.lastPage ? h('code', { class: 'wrap' }, v.lastPage) : '–',
    when(v.firstSeen, '–', recentTime),
    when(v.lastSeen, '–', recentTime),
    v.identifiedBy
      ? [
          v.identifiedBy.method,
          ', ',
          when(v.identifiedBy.at, '–', recentTime),
          typeof v.identifiedBy.confidence === 'number' ? `, confidence ${confidence(v.identifiedBy.confidence)}` : '',
          v.identifiedBy.method !== 'ip_company' && typeof v.identifiedBy.verified === 'boolean' ? (v.identifiedBy.verified ? ', verified' : ', claimed') : '',
        ]
      : '–',
    v.companyKey ? h('a', { href: companyHref(v.companyKey) }, companyName(v, v.companyKey)) : '–',
    v.network || v.location ? [h('div', {}, network(v.network)), h('div', { class: 'muted' }, place(v.location))] : '–',
  ];
  async function load() {
    const identified = VISITOR_FILTERS.find(([v]) => v === filter)?.[2];
    const query = new URLSearchParams({ limit: String(VISITORS_LIMIT), ...(identified ? { identified } : {}), ...(sort === 'score' ? { sort } : {}) });
    const { items } = await api<List<VisitorRow>>('GET', `visitors?${query}`);
    if (!results.isConnected) return false;
    const empty = filter === 'all' ? 'No visitors yet. Install a site’s tag (Sites) and they appear here.' : `No ${filter} visitors yet.`;
    results.replaceChildren(
      items.length
        ? h(
            'div',
            { class: 'table-scroll' },
            compact(table(sort === 'score' ? 'Visitors by intent score' : 'Latest visitors', columns, items.map(row), [1, 3, 4, 5])),
          )
        : h('p', {}, empty),
    );
    updated.replaceChildren(
      'Updated ',
      when(new Date().toISOString(), '–', dateTimeSeconds),
      `; refreshes every ${VISITORS_POLL_MS / 1000} seconds while this tab is shown.`,
    );
    return true;
  }
  const poller = poll(results, load, () => VISITORS_POLL_MS);
  root.append(
    ...pageHeading(
      'Visitors',
      `The ${VISITORS_LIMIT} latest visitors seen by your sites’ tags: identified ones first, then the most recently seen. Open one to see why it was identified.`,
    ),
    detail,
    h('div', { class: 'filters' }, field('visitors-filter', 'Show', filterSelect), field('visitors-sort', 'Sort by', sortSelect)),
    h('div', { class: 'actions' }, updated, h('button', { type: 'button', class: 'secondary', onclick: action(async () => poller.now()) }, 'Refresh now')),
    results,
  );
  const wanted = params.get('visitor');
  if (wanted) await showVisitor(detail, wanted, filter);
}
