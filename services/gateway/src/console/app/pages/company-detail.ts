// One company (#/companies?company=KEY…, GET /account/companies/{key}): its firmographics, its
// visits per day over the window as a chart (and a table), its people and the pages they viewed.
// The list's filters ride along in the address, for the site and window here and the Back link.
import type { CompanyDetail, CompanySummary } from '@glimpse/api';
import { api } from '../api';
import type { List, Site } from '../api-types';
import { barChart } from '../bar-chart';
import { field, filtersForm, loading, tableOr } from '../components';
import { h, type Child } from '../dom';
import { count, dateTime, place, plural, recentTime, when } from '../format';
import { action } from '../messages';
import { reasonsSection } from '../intent';
import { companyAddress, companyQuery, listAddress, siteSelect, windowSelect, windowText, type CompanyFilters } from './company-filters';

// Days are UTC days (the API's): labelled in UTC, or a visit would show on the day before west of it.
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayOf = (day: string) => dayLabel.format(new Date(`${day}T00:00:00Z`));

/** The page's company and filters, and the elements a show fills. */
interface CompanyView {
  root: HTMLElement;
  key: string;
  filters: CompanyFilters;
  back: HTMLAnchorElement;
  title: HTMLElement;
  intro: HTMLElement;
  body: HTMLElement;
}

export async function companyPage(root: HTMLElement, key: string, initial: CompanyFilters): Promise<void> {
  const view: CompanyView = {
    root,
    key,
    filters: initial,
    back: h('a', { href: listAddress(initial) }, 'All companies'),
    title: h('h1', { tabindex: '-1' }, 'Company ', h('code', {}, key)),
    intro: h('p', { class: 'intro' }),
    body: h('div', {}, loading()),
  };
  root.append(h('p', { class: 'breadcrumb' }, view.back), view.title, view.intro, view.body);
  const [{ items: sites }] = await Promise.all([api<List<Site>>('GET', 'sites'), showCompany(view)]);
  if (!root.isConnected) return;
  view.intro.after(siteWindowForm(view, sites));
}

// The site and window form: a change shows the company again and is kept in the address and the Back link.
function siteWindowForm(view: CompanyView, sites: readonly Site[]): HTMLFormElement {
  const siteChoice = siteSelect(sites, view.filters);
  const windowChoice = windowSelect(view.filters);
  const form = filtersForm(
    action(async () => {
      view.filters = { ...view.filters, site: siteChoice.value, days: Number(windowChoice.value) };
      history.replaceState(null, '', companyAddress(view.key, view.filters));
      view.back.setAttribute('href', listAddress(view.filters));
      await showCompany(view);
    }),
    'Show',
    field('company-site', 'Site', siteChoice),
    field('company-window', 'Window', windowChoice),
  );
  form.setAttribute('aria-label', 'Site and window');
  return form;
}

// The company in the site and window chosen: its name as the title, its totals, its sections.
async function showCompany(view: CompanyView): Promise<void> {
  const c = await api<CompanyDetail>('GET', `companies/${encodeURIComponent(view.key)}?${companyQuery(view.filters)}`);
  if (!view.root.isConnected) return;
  const { filters } = view;
  view.title.replaceChildren(c.name);
  document.title = `${c.name} · Companies · Glimpse console`;
  view.intro.replaceChildren(
    `${plural(c.visitors, 'visitor')} (${count(c.identified)} identified), ${plural(c.sessions, 'visit')} and ${plural(c.page_views, 'page view')} in ${windowText(filters)}; last visit `,
    when(c.last_visit, '–', dateTime),
    '.',
  );
  view.body.replaceChildren(
    h('h2', {}, 'About'),
    facts(c),
    reasonsSection(c.intent, 'this company’s visitors', 'h2'),
    h('h2', {}, 'Visits per day'),
    ...visitsChart(c, filters),
    h('h2', {}, 'People'),
    peopleTable(c, filters),
    h('h2', {}, 'Pages'),
    tableOr(
      h('p', { class: 'muted' }, 'No page views.'),
      `Pages viewed from ${c.name}, most viewed first`,
      ['Page', 'Views'],
      c.pages.map((p) => [h('code', { class: 'wrap' }, p.path), count(p.views)]),
      [1],
    ),
  );
}

// The company's people, newest first, each linking to the visitor's page.
function peopleTable(c: CompanyDetail, filters: CompanyFilters): HTMLElement {
  return tableOr(
    h('p', { class: 'muted' }, `No one from ${c.name} in ${windowText(filters)}.`),
    `People from ${c.name}, newest first`,
    ['Visitor', 'Email', 'Page views', 'Last seen', 'Location'],
    c.people.map((p) => [
      h('a', { href: `#/visitors?${new URLSearchParams({ visitor: p.visitorId })}`, 'aria-label': `Open visitor ${p.visitorId}` }, h('code', {}, p.visitorId)),
      p.email ?? h('span', { class: 'muted' }, 'anonymous'),
      count(p.pageViews),
      when(p.lastSeen, '–', recentTime),
      place(p.location),
    ]),
    [2],
  );
}

// The firmographics when a company record has the domain, and what the visits say in any case.
function facts(c: CompanySummary): HTMLElement {
  const f = c.firmographics;
  const rows: [string, Child][] = [
    ['Domain', c.domain ? h('code', {}, c.domain) : '–'],
    ...(f
      ? ([
          ['Industry', f.industry ?? '–'],
          ['Size', f.size ? `${f.size} employees` : '–'],
          ['Employees', f.employees === null ? '–' : count(f.employees)],
          ['Founded', f.founded === null ? '–' : String(f.founded)],
          ['Headquarters', place(f.location)],
          ['Profile', f.pronet_url ? h('a', { href: f.pronet_url, rel: 'noopener noreferrer', target: '_blank' }, f.pronet_url) : '–'],
        ] satisfies [string, Child][])
      : []),
    ['Network', c.network_type ? `${c.network_type} network` : '–'],
    ['Latest visitor in', place(c.location)],
    ['First visit', when(c.first_visit)],
  ];
  return h(
    'div',
    {},
    h(
      'dl',
      { class: 'facts', id: 'company-facts' },
      rows.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
    ),
    f ? '' : h('p', { class: 'muted' }, 'No company record has this domain yet: its industry, size and headquarters show here once one does.'),
  );
}

function visitsChart(c: CompanyDetail, filters: CompanyFilters): (HTMLElement | SVGElement)[] {
  const days = c.days;
  const [svg, legend] = barChart({
    labelledBy: 'visits-summary',
    className: 'visits-chart',
    slots: days.map((d) => ({
      label: dayOf(d.day),
      bar: d.sessions,
      line: d.visitors,
      title: `${dayOf(d.day)}: ${plural(d.sessions, 'visit')}, ${plural(d.visitors, 'visitor')}, ${plural(d.page_views, 'page view')}`,
      data: { day: d.day, visits: d.sessions, visitors: d.visitors, 'page-views': d.page_views },
    })),
    yTitle: 'visits and visitors per day',
    xTitle: 'day (UTC)',
    labelEvery: Math.max(1, Math.ceil(days.length / 8)),
    legend: { bars: 'Visits (bars)', line: 'Visitors (line)' },
  });
  const total = days.reduce((sum, d) => sum + d.sessions, 0);
  const busiest = days.reduce<(typeof days)[number] | undefined>((best, d) => (!best || d.sessions > best.sessions ? d : best), undefined);
  const summary = h(
    'p',
    { id: 'visits-summary', class: 'chart-summary' },
    total && busiest
      ? `${plural(total, 'visit')} from ${c.name} in ${windowText(filters)}; the busiest day, ${dayOf(busiest.day)}, had ${plural(busiest.sessions, 'visit')}.`
      : `No visits from ${c.name} in ${windowText(filters)}.`,
  );
  const asTable = h(
    'details',
    {},
    h('summary', {}, 'Visits as a table'),
    tableOr(
      h('p', {}, 'No days.'),
      'Visits per day (UTC)',
      ['Day', 'Visits', 'Visitors', 'Page views'],
      days.map((d) => [h('time', { datetime: d.day }, dayOf(d.day)), count(d.sessions), count(d.visitors), count(d.page_views)]),
      [1, 2, 3],
    ),
  );
  return [summary, svg, legend, asTable];
}
