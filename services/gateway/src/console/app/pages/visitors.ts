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

const VISITORS_POLL_MS = 10_000;
const VISITORS_LIMIT = 50;

/** The filter's value in the address, its label, and the API's `identified` parameter for it. */
const VISITOR_FILTERS: readonly (readonly [value: string, label: string, identified: string | null])[] = [
  ['all', 'All visitors', null],
  ['identified', 'Identified', 'true'],
  ['anonymous', 'Anonymous', 'false'],
];

const visitorHref = (id: string, filter: string): string => `#/visitors?${new URLSearchParams({ ...(filter !== 'all' ? { filter } : {}), visitor: id })}`;

// The company a visitor counts for, by its key (a domain, or a name lower-cased when the data has
// no domain): the address's company name where that is the key.
function companyName(v: VisitorRow, key: string): string {
  const name = typeof v.company === 'string' ? v.company : v.company?.name;
  return name && name.toLowerCase() === key ? name : key;
}

export async function visitorsPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const results = h('div', {}, loading());
  const detail = h('div');
  const updated = h('p', { class: 'muted', id: 'visitors-updated' });
  const wantedFilter = params.get('filter');
  let filter = VISITOR_FILTERS.find(([v]) => v === wantedFilter)?.[0] ?? 'all';
  // The filter is kept in the address, so a reload or a visitor's Close link comes back to it.
  const filterSelect = h(
    'select',
    {
      onchange: action(async () => {
        filter = filterSelect.value;
        history.replaceState(null, '', filter === 'all' ? '#/visitors' : `#/visitors?filter=${filter}`);
        detail.replaceChildren();
        results.replaceChildren(loading());
        await load();
      }),
    },
    VISITOR_FILTERS.map(([value, label]) => h('option', { value, selected: value === filter }, label)),
  );
  const columns = [
    'Visitor',
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
    v.email ??
      (v.company
        ? ['anonymous, ', h('span', { class: 'company' }, typeof v.company === 'string' ? v.company : v.company.name)]
        : h('span', { class: 'muted' }, 'anonymous')),
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
    const query = new URLSearchParams({ limit: String(VISITORS_LIMIT), ...(identified ? { identified } : {}) });
    const { items } = await api<List<VisitorRow>>('GET', `visitors?${query}`);
    if (!results.isConnected) return false;
    const empty = filter === 'all' ? 'No visitors yet. Install a site’s tag (Sites) and they appear here.' : `No ${filter} visitors yet.`;
    results.replaceChildren(
      items.length ? h('div', { class: 'table-scroll' }, compact(table('Latest visitors', columns, items.map(row), [2, 3, 4]))) : h('p', {}, empty),
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
    h('div', { class: 'filters' }, field('visitors-filter', 'Show', filterSelect)),
    h('div', { class: 'actions' }, updated, h('button', { type: 'button', class: 'secondary', onclick: action(async () => poller.now()) }, 'Refresh now')),
    results,
  );
  const wanted = params.get('visitor');
  if (wanted) await showVisitor(detail, wanted, filter);
}
