// Sites: add one (its tag is shown at once), the list with each site's last 24 hours, edit,
// delete; #/sites?site=… opens a site's install and traffic section (site-install.ts).
import { api, ApiError } from '../api';
import type { List, Site, SiteStats } from '../api-types';
import { compact, listChanged, loading, pageHeading, table } from '../components';
import { h, hidden, type Child } from '../dom';
import { names, plural, when } from '../format';
import { action, say } from '../messages';
import { siteFields } from './site-fields';
import { identitySection } from './site-identity';
import { installSection, siteSettings } from './site-install';

/** What the page's steps share: the install (or edit) section, and the list with its heading. */
interface SitesPage {
  detail: HTMLElement;
  sitesList: HTMLElement;
  listHeading: HTMLElement;
}

export async function sitesPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const page: SitesPage = {
    detail: h('div'),
    sitesList: h('div', {}, loading()),
    listHeading: h('h2', { tabindex: '-1' }, 'Your sites'),
  };
  root.append(
    ...pageHeading(
      'Sites',
      'A site is a website you put the Glimpse tag on. Its key is public by design: it can only send page views, and only from the site’s origins.',
    ),
    addForm(page),
    page.detail,
    page.listHeading,
    page.sitesList,
  );
  const wanted = params.get('site');
  await Promise.all([load(page), wanted ? api<Site>('GET', `sites/${encodeURIComponent(wanted)}`).then((site) => show(page, site)) : undefined]);
}

// "Add a site": on success the form is emptied and the new site's install section opens.
function addForm(page: SitesPage): HTMLFormElement {
  const create = siteFields('site', null);
  const form = h(
    'form',
    { class: 'site-form', onsubmit: action(add) },
    h('h2', {}, 'Add a site'),
    ...create.elements,
    h('button', { type: 'submit' }, 'Add site'),
  );
  async function add() {
    const site = await api<Site>('POST', 'sites', create.read());
    form.reset();
    history.replaceState(null, '', `#/sites?site=${encodeURIComponent(site.id)}`);
    await Promise.all([load(page), show(page, site)]);
    say(`Site “${site.name}” added: install its tag below.`);
  }
  return form;
}

// The list of sites, or the line that says there are none; then each row's stats are filled in.
async function load(page: SitesPage): Promise<void> {
  const { items } = await api<List<Site>>('GET', 'sites');
  if (!page.sitesList.isConnected) return;
  const stats = items.map((s) => siteStats(s));
  const rows = items.map((s, i) => siteRow(page, s, stats[i]?.element));
  page.sitesList.replaceChildren(
    items.length
      ? h(
          'div',
          { class: 'table-scroll' },
          compact(table('Sites', ['Name', 'Site key', 'Origins', 'Tracked events', 'Identification', 'Stats (24 h)', 'Created', 'Actions'], rows)),
        )
      : h('p', {}, 'No sites yet: add one above to get its tag.'),
  );
  await Promise.all(stats.map((x) => x.load()));
}

// One site's row: its settings, its stats cell, and its actions named for screen readers.
function siteRow(page: SitesPage, s: Site, stats: HTMLElement | undefined): Child[] {
  return [
    s.name,
    h('code', {}, s.key),
    h(
      'ul',
      { class: 'plain' },
      s.origins.map((o) => h('li', {}, h('code', {}, o))),
    ),
    names(s.track_events),
    siteSettings(s),
    stats,
    when(s.createdAt),
    h(
      'div',
      { class: 'row-actions' },
      h('a', { href: `#/sites?site=${encodeURIComponent(s.id)}` }, 'Install and traffic', hidden(` of ${s.name}`)),
      h('button', { type: 'button', class: 'secondary', onclick: () => edit(page, s) }, 'Edit', hidden(` ${s.name}`)),
      h('button', { type: 'button', class: 'danger', onclick: action(() => remove(page, s)) }, 'Delete', hidden(` ${s.name}`)),
    ),
  ];
}

// A row's Edit: the site's form in place of the install section; saving shows that section again.
function edit(page: SitesPage, site: Site): void {
  const fields = siteFields('edit-site', site);
  const heading = h('h2', { id: 'edit-site-title' }, `Edit “${site.name}”`);
  const cancel = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () => {
        page.detail.replaceChildren();
        page.listHeading.focus();
      },
    },
    'Cancel',
  );
  const save = action(async () => {
    const saved = await api<Site>('PATCH', `sites/${encodeURIComponent(site.id)}`, fields.read());
    await Promise.all([load(page), show(page, saved)]);
    say(`Site “${saved.name}” saved.`);
  });
  page.detail.replaceChildren(
    h(
      'form',
      { class: 'site-form', 'aria-labelledby': 'edit-site-title', onsubmit: save },
      heading,
      ...fields.elements,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save changes'), cancel),
    ),
  );
  fields.focus();
}

// A row's Delete: asks first, and closes the site's install section if it was open.
async function remove(page: SitesPage, site: Site): Promise<void> {
  if (
    !confirm(`Delete the site “${site.name}”? Its key stops collecting at once, and its visitors’ page views and traffic are deleted. This cannot be undone.`)
  )
    return;
  await api('DELETE', `sites/${encodeURIComponent(site.id)}`);
  if (page.detail.dataset.site === site.id) page.detail.replaceChildren();
  await listChanged(() => load(page), page.listHeading, `Site “${site.name}” deleted.`);
}

// A site's install and traffic section, then its identity secret section; the first gets the focus.
async function show(page: SitesPage, site: Site): Promise<void> {
  const section = installSection(site);
  page.detail.dataset.site = site.id;
  page.detail.replaceChildren(section, identitySection(site));
  section.querySelector('h2')?.focus();
}

// "Stats (24 h)": one line per site, filled in once the visitors service answers; a failure
// stays in its cell (one site's stats must not hide the list).
function siteStats(site: Site): { element: HTMLElement; load: () => Promise<void> } {
  const element = h('span', { class: 'muted site-stats', 'data-site': site.id }, '…');
  async function load() {
    try {
      const st = await api<SiteStats>('GET', `sites/${encodeURIComponent(site.id)}/stats`);
      element.className = 'site-stats';
      element.replaceChildren(
        `${plural(st.page_views, 'page view')}, ${plural(st.visitors, 'visitor')}, ${st.identified_visitors} identified, ${plural(st.bots, 'bot page view')}`,
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw err;
      element.replaceChildren('unavailable');
      element.title = err instanceof ApiError ? err.message : 'unavailable';
    }
  }
  return { element, load };
}
