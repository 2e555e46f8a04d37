// Sites: add one (its tag is shown at once), the list with each site's last 24 hours, edit,
// delete; #/sites?site=… opens a site's install and traffic section (site-install.ts).
import { api, ApiError } from '../api';
import type { List, Site, SiteStats } from '../api-types';
import { compact, listChanged, loading, pageHeading, table } from '../components';
import { h, hidden } from '../dom';
import { names, plural, when } from '../format';
import { action, say } from '../messages';
import { siteFields } from './site-fields';
import { identitySection } from './site-identity';
import { installSection, siteSettings } from './site-install';

export async function sitesPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const detail = h('div');
  const sitesList = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your sites');
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
    await Promise.all([load(), show(site)]);
    say(`Site “${site.name}” added: install its tag below.`);
  }

  async function load() {
    const { items } = await api<List<Site>>('GET', 'sites');
    if (!sitesList.isConnected) return;
    const stats = items.map((s) => siteStats(s));
    const rows = items.map((s, i) => [
      s.name,
      h('code', {}, s.key),
      h(
        'ul',
        { class: 'plain' },
        s.origins.map((o) => h('li', {}, h('code', {}, o))),
      ),
      names(s.track_events),
      siteSettings(s),
      stats[i]?.element,
      when(s.createdAt),
      h(
        'div',
        { class: 'row-actions' },
        h('a', { href: `#/sites?site=${encodeURIComponent(s.id)}` }, 'Install and traffic', hidden(` of ${s.name}`)),
        h('button', { type: 'button', class: 'secondary', onclick: () => edit(s) }, 'Edit', hidden(` ${s.name}`)),
        h('button', { type: 'button', class: 'danger', onclick: action(() => remove(s)) }, 'Delete', hidden(` ${s.name}`)),
      ),
    ]);
    sitesList.replaceChildren(
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

  function edit(site: Site) {
    const fields = siteFields('edit-site', site);
    const heading = h('h2', { id: 'edit-site-title' }, `Edit “${site.name}”`);
    const cancel = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          detail.replaceChildren();
          listHeading.focus();
        },
      },
      'Cancel',
    );
    const save = action(async () => {
      const saved = await api<Site>('PATCH', `sites/${encodeURIComponent(site.id)}`, fields.read());
      await Promise.all([load(), show(saved)]);
      say(`Site “${saved.name}” saved.`);
    });
    detail.replaceChildren(
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

  async function remove(site: Site) {
    if (
      !confirm(`Delete the site “${site.name}”? Its key stops collecting at once, and its visitors’ page views and traffic are deleted. This cannot be undone.`)
    )
      return;
    await api('DELETE', `sites/${encodeURIComponent(site.id)}`);
    if (detail.dataset.site === site.id) detail.replaceChildren();
    await listChanged(load, listHeading, `Site “${site.name}” deleted.`);
  }

  async function show(site: Site) {
    const section = installSection(site);
    detail.dataset.site = site.id;
    detail.replaceChildren(section, identitySection(site));
    section.querySelector('h2')?.focus();
  }

  root.append(
    ...pageHeading(
      'Sites',
      'A site is a website you put the Glimpse tag on. Its key is public by design: it can only send page views, and only from the site’s origins.',
    ),
    form,
    detail,
    listHeading,
    sitesList,
  );
  const wanted = params.get('site');
  await Promise.all([load(), wanted ? api<Site>('GET', `sites/${encodeURIComponent(wanted)}`).then(show) : undefined]);
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
