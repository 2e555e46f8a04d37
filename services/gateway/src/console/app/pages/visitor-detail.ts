// One visitor: what it did, and every identification with its method, confidence, time and the
// page that triggered it.
import { api } from '../api';
import type { Identification, Visitor } from '../api-types';
import { loading, tableOr } from '../components';
import { h, type Child } from '../dom';
import { confidence, duration, network, place, when } from '../format';
import { reasonsSection } from '../intent';
import { companyHref } from './company-filters';

const METHOD_NAMES: Readonly<Record<string, string>> = {
  identify: 'identify call',
  form: 'form submitted',
  email_link: 'email link',
  ip_company: 'company from IP',
  import: 'import',
};
const methodName = (method: string): string => METHOD_NAMES[method] ?? method;
/** "verified" (the site's identity hash, an email link, an import) or "claimed" (anyone with the site key could have said it). */
const verifiedName = (verified: boolean | null | undefined): string => (verified === true ? 'verified' : verified === false ? 'claimed' : '–');

/** Fills `slot` with visitor `id`; its Close link goes back to the list with `filter`. */
export async function showVisitor(slot: HTMLElement, id: string, filter: string): Promise<void> {
  slot.replaceChildren(loading());
  const v = await api<Visitor>('GET', `visitors/${encodeURIComponent(id)}`);
  if (!slot.isConnected) return;
  const close = h('a', { href: filter === 'all' ? '#/visitors' : `#/visitors?filter=${filter}` }, 'Close');
  const section = h(
    'section',
    { class: 'visitor-detail install', 'aria-labelledby': 'visitor-title' },
    h('h2', { id: 'visitor-title', tabindex: '-1' }, 'Visitor ', h('code', {}, v.id ?? id)),
    visitorFacts(v),
    reasonsSection(v.intent, 'this visitor', 'h3'),
    h('h3', {}, 'Identity history'),
    identityTable(v.identityHistory ?? []),
    h('h3', {}, 'Sessions'),
    sessionsTable(v.sessionList ?? []),
    h('h3', {}, 'Pages, newest first'),
    tableOr(
      h('p', { class: 'muted' }, 'No page views.'),
      'Pages',
      ['Page', 'Title', 'When'],
      (v.pages ?? []).map((p) => [h('code', { class: 'wrap' }, p.path), p.title ?? '–', when(p.at)]),
    ),
    h('p', {}, close),
  );
  slot.replaceChildren(section);
  section.querySelector('h2')?.focus();
}

// Who the visitor is (email, the reason, company, network, place, consent) and what it did.
function visitorFacts(v: Visitor): HTMLElement {
  const identifiedBy = v.identifiedBy;
  // The newest person link's page: the reason line says where the match happened.
  const trigger =
    identifiedBy && identifiedBy.method !== 'ip_company'
      ? (v.identityHistory ?? []).find((l) => l.method === identifiedBy.method && l.at === identifiedBy.at)
      : null;
  const consent = typeof v.consent === 'string' ? { state: v.consent, at: null } : (v.consent ?? { state: 'implied', at: null });
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Email'),
    h('dd', { id: 'visitor-email' }, v.email ?? h('span', { class: 'muted' }, 'not identified')),
    h('dt', {}, 'Identified by'),
    h('dd', { id: 'visitor-reason' }, identifiedBy ? reason({ ...identifiedBy, sourcePath: trigger?.sourcePath }) : 'not identified'),
    h('dt', {}, 'Company (from IP)'),
    h('dd', { id: 'visitor-company' }, companyFromIp(v.company)),
    h('dt', {}, 'Counts for company'),
    h('dd', { id: 'visitor-company-key' }, v.companyKey ? h('a', { href: companyHref(v.companyKey) }, v.companyKey) : '–'),
    h('dt', {}, 'Network'),
    h('dd', { id: 'visitor-network' }, network(v.network)),
    h('dt', {}, 'Location'),
    h('dd', { id: 'visitor-location' }, place(v.location), v.location?.time_zone ? ` (${v.location.time_zone})` : ''),
    h('dt', {}, 'Consent'),
    h('dd', { id: 'visitor-consent' }, consent.state, consent.at ? [' since ', when(consent.at)] : '', v.cookieless ? ' (cookieless)' : ''),
    h('dt', {}, 'Page views'),
    h('dd', {}, String(v.pageViews ?? (v.pages ?? []).length)),
    h('dt', {}, 'Engaged time'),
    h('dd', {}, duration(v.engagedSeconds ?? 0)),
    h('dt', {}, 'First seen'),
    h('dd', {}, when(v.firstSeen)),
    h('dt', {}, 'Last seen'),
    h('dd', {}, when(v.lastSeen)),
  );
}

// "Acme (acme.com), Nov 28 10:01": the company the visitor's IP address belongs to, if known.
function companyFromIp(value: Visitor['company']): Child {
  const company = typeof value === 'string' ? { name: value, domain: null, at: null } : value; // {name, domain, at} | null
  return company?.name ? [company.name, company.domain ? [' (', h('code', {}, company.domain), ')'] : '', company.at ? [', ', when(company.at)] : ''] : '–';
}

// Every person link of the visitor, newest first, with the page that triggered it.
function identityTable(identities: NonNullable<Visitor['identityHistory']>): HTMLElement {
  return tableOr(
    h('p', { class: 'muted' }, 'Never identified by a person method.'),
    'Identity history, newest first',
    ['Email', 'Method', 'Confidence', 'When', 'Triggered on page', 'Verified'],
    identities.map((l) => [
      l.email,
      methodName(l.method),
      confidence(l.confidence),
      when(l.at),
      l.sourcePath ? h('code', { class: 'wrap' }, l.sourcePath) : '–',
      verifiedName(l.verified),
    ]),
    [2],
  );
}

// The visitor's sessions, newest first, each with where it came from.
function sessionsTable(sessions: NonNullable<Visitor['sessionList']>): HTMLElement {
  return tableOr(
    h('p', { class: 'muted' }, 'No sessions.'),
    'Sessions, newest first',
    ['Session', 'Started', 'Last activity', 'Page views', 'Landing page', 'Referrer', 'Campaign'],
    sessions.map((x) => [
      String(x.number),
      when(x.startedAt),
      when(x.lastAt),
      String(x.pageViews),
      x.landingPath ? h('code', { class: 'wrap' }, x.landingPath) : '–',
      x.referrer ?? '–',
      x.utmCampaign ?? '–',
    ]),
    [3],
  );
}

// "form submitted (claimed) on /contact, confidence 0.60, Nov 28 10:01": the reason a visitor is who we say.
function reason(by: Identification & { sourcePath?: string | null }): Child {
  const path = by.sourcePath;
  return [
    methodName(by.method),
    by.method !== 'ip_company' && typeof by.verified === 'boolean' ? ` (${verifiedName(by.verified)})` : '',
    path ? [' on ', h('code', {}, path)] : '',
    typeof by.confidence === 'number' ? `, confidence ${confidence(by.confidence)}` : '',
    by.at ? [', ', when(by.at)] : '',
  ];
}
