// The install snippet, the first-page-view check and the traffic chart of one site.
import { api } from '../api';
import type { Site, Traffic } from '../api-types';
import { copyButton, loading } from '../components';
import { h } from '../dom';
import { names, when } from '../format';
import { poll } from '../poll';
import { trafficChart } from './traffic-chart';

// A site's key may collect page views from its origins only; the tag is one script element.
const QUEUE_STUB = 'window.glimpse = window.glimpse || function () { (glimpse.q = glimpse.q || []).push(arguments); };';
const FIRST_VIEW_POLL_MS = 5_000;
const TRAFFIC_POLL_MS = 60_000;

export function installSection(site: Site): HTMLElement {
  const snippet = h('code', { id: 'install-snippet' }, site.snippet.html);
  const check = h('p', { class: 'check-status pending', id: 'first-view' }, 'Waiting for the first page view…');
  const chart = h('div', { class: 'chart-wrap' }, loading());
  const section = h(
    'section',
    { class: 'install', 'aria-labelledby': 'install-title' },
    h('h2', { id: 'install-title', tabindex: '-1' }, `Install “${site.name}”`),
    h(
      'p',
      {},
      'Paste this tag into the ',
      h('code', {}, '<head>'),
      ' of every page of the site. It needs no inline script, so it works under a strict Content Security Policy.',
    ),
    h(
      'p',
      { class: 'hint' },
      "The script carries this site's settings (identification, consent, the query keys kept): a change here reaches every page within about five minutes, without editing them.",
    ),
    h('pre', { class: 'snippet' }, snippet),
    h('div', { class: 'actions' }, copyButton('Copy snippet', snippet)),
    siteFacts(site),
    ...queueStub(),
    h('h3', {}, 'Is it installed?'),
    h('div', { role: 'status', 'aria-live': 'polite' }, check),
    h('h2', {}, 'Traffic, last 24 hours'),
    chart,
  );
  watchTraffic(section, site, check, chart);
  return section;
}

// The site's key, origins and identification settings.
function siteFacts(site: Site): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Site key'),
    h('dd', {}, h('code', {}, site.key)),
    h('dt', {}, 'Origins'),
    h('dd', {}, names(site.origins)),
    h('dt', {}, 'Identification'),
    h('dd', {}, siteSettings(site)),
  );
}

// The optional queue, for calls made before the tag has loaded.
function queueStub(): HTMLElement[] {
  return [
    h('h3', {}, 'Optional: calls before the tag loads'),
    h(
      'p',
      {},
      'To call ',
      h('code', {}, "glimpse('identify', …)"),
      ' or ',
      h('code', {}, "glimpse('track', …)"),
      ' before the tag has loaded, define this queue first in one of your own script files; the tag runs the queued calls when it loads.',
    ),
    h('pre', { class: 'snippet' }, h('code', {}, QUEUE_STUB)),
  ];
}

// While `section` is shown: the site's traffic, polled often until the first page view is
// reported in `check`, then once a minute for the `chart`.
function watchTraffic(section: HTMLElement, site: Site, check: HTMLElement, chart: HTMLElement): void {
  let received = false;
  poll(
    section,
    async () => {
      const traffic = await api<Traffic>('GET', `sites/${encodeURIComponent(site.id)}/traffic`);
      if (!section.isConnected) return false;
      if (traffic.firstPageViewAt && !received) {
        received = true;
        check.className = 'check-status ok';
        check.replaceChildren('✓ First page view received ', when(traffic.firstPageViewAt), '.');
      } else if (!received) {
        check.replaceChildren(
          `Waiting for the first page view… Open a page of the site with the tag on it; this checks every ${FIRST_VIEW_POLL_MS / 1000} seconds.`,
        );
      }
      chart.replaceChildren(...trafficChart(traffic.hours));
      return true;
    },
    () => (received ? TRAFFIC_POLL_MS : FIRST_VIEW_POLL_MS),
  );
}

// A site's identification settings as short phrases, in the list and the install section.
export function siteSettings(site: Site): HTMLElement {
  return h(
    'div',
    { class: 'settings' },
    h('div', {}, site.capture_forms ? 'Forms captured' : 'Forms not captured'),
    h('div', {}, site.consent === 'required' ? 'Consent required' : 'Consent implied'),
    h('div', {}, site.honor_gpc === false ? 'GPC ignored' : 'GPC honoured'),
    h('div', {}, site.query_keys?.length ? `Query keys kept: ${site.query_keys.join(', ')}` : 'No query keys kept'),
  );
}
