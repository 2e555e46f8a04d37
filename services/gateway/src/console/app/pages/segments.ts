// Segments: saved filters over the account's visitors or companies, each with how many are in it
// now; a form that makes one from the filter's fields; #/segments?segment=… lists its members, best
// intent score first, with the score's top reasons. Alerts of members entering go to the webhooks
// and Slack endpoints subscribed to segment.entered (the Webhooks and Alerts pages).
import type { Segment, SegmentFilter, SegmentMember } from '@glimpse/api';
import { api, invalid } from '../api';
import type { List, Paged } from '../api-types';
import { field, listChanged, loading, pageHeading, tableOr } from '../components';
import { h, hidden, type Child } from '../dom';
import { count, place, recentTime, when } from '../format';
import { action, fail, say } from '../messages';
import { pagedTable } from '../paged-table';

type NetworkType = NonNullable<SegmentFilter['network_type']>;
const NETWORK_TYPES: NetworkType[] = ['business', 'education', 'government', 'isp', 'mobile', 'hosting', 'unknown'];
const PAGE_PATTERN = /^\/\S{0,255}$/;
const EVENT = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The filter in words, e.g. "score ≥ 40 · /pricing* within 7 days · identified". */
export function describeFilter(f: SegmentFilter): string {
  const parts = [
    f.min_score !== undefined ? `score ≥ ${f.min_score}` : '',
    f.country ? `in ${f.country}` : '',
    f.industry ? `industry ${f.industry}` : '',
    f.size ? `size ${f.size}` : '',
    f.network_type ? `${f.network_type} network` : '',
    f.pages ? `${f.pages.pattern} within ${f.pages.within_days} days` : '',
    f.events ? `${f.events.name} within ${f.events.within_days} days` : '',
    f.identified === true ? 'identified' : f.identified === false ? 'anonymous' : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'everyone';
}

const memberHref = (m: SegmentMember) =>
  m.kind === 'company' ? `#/companies?company=${encodeURIComponent(m.key)}` : `#/visitors?visitor=${encodeURIComponent(m.key)}`;

function memberCell(m: SegmentMember): Child {
  const label = m.kind === 'company' ? (m.name ?? m.key) : (m.email ?? (m.name ? `Anonymous at ${m.name}` : 'Anonymous visitor'));
  return [h('a', { href: memberHref(m) }, label), m.kind === 'company' && m.domain ? h('div', { class: 'muted' }, m.domain) : ''];
}

const reasonsCell = (m: SegmentMember): Child =>
  m.reasons.length
    ? h(
        'ul',
        { class: 'plain reasons' },
        m.reasons.map((r) => h('li', {}, h('strong', {}, `+${r.points}`), ' ', r.reason)),
      )
    : '–';

function number(input: HTMLInputElement, min: number, max: number, message: string): number | undefined {
  const text = input.value.trim();
  if (text === '') return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < min || n > max || (max > 100 && !Number.isInteger(n))) {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    throw invalid(message);
  }
  input.removeAttribute('aria-invalid');
  return n;
}

function check(input: HTMLInputElement, ok: boolean, message: string): void {
  if (ok) input.removeAttribute('aria-invalid');
  else {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    throw invalid(message);
  }
}

function membersSection(segment: Segment): HTMLElement {
  const { element, load } = pagedTable<SegmentMember>({
    caption: `Members of ${segment.name}, best score first`,
    columns: ['Score', segment.kind === 'companies' ? 'Company' : 'Visitor', 'Top reasons', 'Where', 'Last pages', 'Visitors'],
    fetchPage: (cursor) =>
      api<Paged<SegmentMember>>('GET', `segments/${encodeURIComponent(segment.id)}/members${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`),
    row: (m) => [
      h('span', { class: 'score' }, String(m.score)),
      memberCell(m),
      reasonsCell(m),
      place(m.location),
      m.last_pages.length
        ? h(
            'ul',
            { class: 'plain' },
            m.last_pages.slice(0, 3).map((p) => h('li', {}, h('code', {}, p.path), ' ', h('span', { class: 'muted' }, when(p.at, '–', recentTime)))),
          )
        : '–',
      String(m.visitors),
    ],
    empty: 'Nobody is in this segment now.',
  });
  const section = h(
    'section',
    { class: 'segment-members' },
    h(
      'h2',
      { tabindex: '-1' },
      `${segment.name}: ${count(segment.count)} ${segment.kind === 'companies' ? (segment.count === 1 ? 'company' : 'companies') : segment.count === 1 ? 'visitor' : 'visitors'}`,
    ),
    h('p', { class: 'muted' }, describeFilter(segment.filter), ` · alerts at most once per member every ${segment.alert_window_hours} h`),
    element,
  );
  load().catch(fail);
  return section;
}

/** The form's inputs: the segment's name, kind and alert window, and the filter's fields. */
interface SegmentInputs {
  name: HTMLInputElement;
  kind: HTMLSelectElement;
  minScore: HTMLInputElement;
  country: HTMLInputElement;
  industry: HTMLInputElement;
  size: HTMLInputElement;
  networkType: HTMLSelectElement;
  pagePattern: HTMLInputElement;
  pageDays: HTMLInputElement;
  eventName: HTMLInputElement;
  eventDays: HTMLInputElement;
  identified: HTMLSelectElement;
  windowHours: HTMLInputElement;
}

/** The page's list of segments, its heading, and the slot of the segment opened. */
interface SegmentsView {
  list: HTMLElement;
  heading: HTMLElement;
  detail: HTMLElement;
}

export async function segmentsPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const view: SegmentsView = { list: h('div', {}, loading()), heading: h('h2', { tabindex: '-1' }, 'Your segments'), detail: h('div') };
  root.append(
    ...pageHeading(
      'Segments',
      'A segment is a saved filter over your visitors or companies: an intent score at least some number, a country, the company’s industry or size, a network type, a page read or an event tracked within some days, identified or not. It answers who is in it now, best score first with the reasons for each score; someone entering it is announced to the endpoints subscribed to segment.entered, and each segment’s daily digest to those subscribed to segment.digest.',
    ),
    view.detail,
    h('h2', {}, 'New segment'),
    segmentForm(view),
    view.heading,
    view.list,
  );
  const wanted = params.get('segment');
  if (wanted) view.detail.replaceChildren(membersSection(await api<Segment>('GET', `segments/${encodeURIComponent(wanted)}`)));
  await loadSegments(view);
}

// The form's inputs, empty.
function segmentInputs(): SegmentInputs {
  const text = (placeholder: string, max = '200') => h('input', { type: 'text', maxlength: max, autocomplete: 'off', spellcheck: 'false', placeholder });
  const num = (placeholder: string, min: string, max: string) => h('input', { type: 'number', min, max, step: '1', inputmode: 'numeric', placeholder });
  return {
    name: h('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off', placeholder: 'Hot accounts' }),
    kind: h('select', {}, h('option', { value: 'visitors' }, 'Visitors'), h('option', { value: 'companies' }, 'Companies')),
    minScore: num('40', '0', '100'),
    country: text('DE', '2'),
    industry: text('Software', '100'),
    size: text('51-200', '40'),
    networkType: h('select', {}, h('option', { value: '' }, 'Any'), ...NETWORK_TYPES.map((t) => h('option', { value: t }, t))),
    pagePattern: text('/pricing*', '256'),
    pageDays: num('7', '1', '400'),
    eventName: text('demo_requested', '64'),
    eventDays: num('7', '1', '400'),
    identified: h(
      'select',
      {},
      h('option', { value: '' }, 'Either'),
      h('option', { value: 'true' }, 'Identified'),
      h('option', { value: 'false' }, 'Anonymous'),
    ),
    windowHours: num('24', '1', '744'),
  };
}

// The form that makes a segment from the filter's fields.
function segmentForm(view: SegmentsView): HTMLFormElement {
  const inputs = segmentInputs();
  const form: HTMLFormElement = h(
    'form',
    { class: 'create', onsubmit: action(() => addSegment(form, inputs, view)) },
    field('segment-name', 'Name', inputs.name),
    field(
      'segment-kind',
      'Of',
      inputs.kind,
      'Visitors one by one, or companies (their visitors together; a company’s score adds up its visitors’, at most 100).',
    ),
    field('segment-min-score', 'Intent score at least', inputs.minScore, '0 to 100.'),
    field('segment-country', 'Country', inputs.country, 'Two letters, e.g. DE.'),
    field('segment-industry', 'Industry', inputs.industry, 'The company’s firmographics.'),
    field('segment-size', 'Company size', inputs.size),
    field('segment-network', 'Network type', inputs.networkType),
    field('segment-page', 'Read a page', inputs.pagePattern, '* matches any characters, e.g. /pricing*.'),
    field('segment-page-days', 'Page within days', inputs.pageDays, '7 by default.'),
    field('segment-event', 'Tracked an event', inputs.eventName, 'An event with intent points.'),
    field('segment-event-days', 'Event within days', inputs.eventDays, '7 by default.'),
    field('segment-identified', 'Identified', inputs.identified),
    field('segment-window', 'Alert at most once every (hours)', inputs.windowHours, '24 by default: a member entering again within it is not announced again.'),
    h('button', { type: 'submit' }, 'Create segment'),
  );
  return form;
}

// The form's submit: the name checked, the filter read, the segment made and the list loaded again.
async function addSegment(form: HTMLFormElement, inputs: SegmentInputs, view: SegmentsView): Promise<void> {
  check(inputs.name, inputs.name.value.trim() !== '', 'Give the segment a name.');
  const filter = readFilter(inputs);
  const hours = number(inputs.windowHours, 1, 744, 'The alert window is a whole number of hours from 1 to 744.');
  const created = await api<Segment>('POST', 'segments', {
    name: inputs.name.value.trim(),
    kind: inputs.kind.value,
    filter,
    ...(hours !== undefined ? { alert_window_hours: hours } : {}),
  });
  form.reset();
  await loadSegments(view);
  say(`Segment ${created.name} created: ${count(created.count)} in it now.`);
}

// The filter from the fields filled in, each checked in the form's order; an ApiError at the first that is wrong.
function readFilter(inputs: SegmentInputs): SegmentFilter {
  const { minScore, country, industry, size, networkType, pagePattern, pageDays, eventName, eventDays, identified } = inputs;
  const filter: SegmentFilter = {};
  const score = number(minScore, 0, 100, 'The score is a number from 0 to 100.');
  if (score !== undefined) filter.min_score = score;
  if (country.value.trim()) {
    check(country, /^[A-Za-z]{2}$/.test(country.value.trim()), 'A country is two letters, e.g. DE.');
    filter.country = country.value.trim().toUpperCase();
  }
  if (industry.value.trim()) filter.industry = industry.value.trim();
  if (size.value.trim()) filter.size = size.value.trim();
  // The select offers NETWORK_TYPES only.
  if (networkType.value) filter.network_type = networkType.value as NetworkType;
  if (pagePattern.value.trim()) {
    check(pagePattern, PAGE_PATTERN.test(pagePattern.value.trim()), 'A page pattern is a path starting with /, up to 256 characters, no spaces.');
    filter.pages = { pattern: pagePattern.value.trim(), within_days: number(pageDays, 1, 400, 'Days are a whole number from 1 to 400.') ?? 7 };
  }
  if (eventName.value.trim()) {
    check(eventName, EVENT.test(eventName.value.trim()), 'An event name is 1 to 64 letters, digits, _ . : or -.');
    filter.events = { name: eventName.value.trim(), within_days: number(eventDays, 1, 400, 'Days are a whole number from 1 to 400.') ?? 7 };
  }
  if (identified.value) filter.identified = identified.value === 'true';
  return filter;
}

// Every segment as a table (or a line saying there is none yet).
async function loadSegments(view: SegmentsView): Promise<void> {
  const { items } = await api<List<Segment>>('GET', 'segments');
  if (!view.list.isConnected) return;
  const rows = items.map((s) => [
    h('a', { href: `#/segments?segment=${encodeURIComponent(s.id)}` }, s.name),
    s.kind === 'companies' ? 'Companies' : 'Visitors',
    count(s.count),
    describeFilter(s.filter),
    `${s.alert_window_hours} h`,
    h('button', { type: 'button', class: 'danger', onclick: action(() => removeSegment(s, view)) }, 'Delete', hidden(` segment ${s.name}`)),
  ]);
  view.list.replaceChildren(tableOr(h('p', {}, 'No segments yet.'), 'Segments', ['Name', 'Of', 'Members now', 'Filter', 'Alert window', 'Actions'], rows));
}

// Once confirmed: the segment deleted (its alerts stop), the one opened closed, the list loaded again.
async function removeSegment(s: Segment, view: SegmentsView): Promise<void> {
  if (!confirm(`Delete the segment ${s.name}? Its alerts stop.`)) return;
  await api('DELETE', `segments/${encodeURIComponent(s.id)}`);
  view.detail.replaceChildren();
  await listChanged(() => loadSegments(view), view.heading, `Segment ${s.name} deleted.`);
}
