// Hash routes (#/sites?site=…): which page <main> shows. Replacing <main>'s children is also
// what drops a one-time secret when the page changes or the person signs out.
import { ApiError } from './api';
import { $, h } from './dom';
import { fail } from './messages';
import { alertsPage } from './pages/alerts';
import { apiKeysPage } from './pages/api-keys';
import { companiesPage } from './pages/companies';
import { emailLinksPage } from './pages/email-links';
import { enrollmentsPage } from './pages/enrollments';
import { eventTokensPage } from './pages/event-tokens';
import { eventsPage } from './pages/events';
import type { PageRender } from './pages/page';
import { pageRulesPage } from './pages/page-rules';
import { playbooksPage } from './pages/playbooks';
import { receiptPage } from './pages/receipt';
import { segmentsPage } from './pages/segments';
import { signInPage } from './pages/sign-in';
import { sitesPage } from './pages/sites';
import { suppressionsPage } from './pages/suppressions';
import { usagePage } from './pages/usage';
import { visitorsPage } from './pages/visitors';
import { webhooksPage } from './pages/webhooks';
import { isSignedIn } from './session';

const HOME = 'companies';

// In the order of the navigation in index.html; a new page needs a link there too.
const PAGES = new Map<string, { title: string; render: PageRender }>([
  ['companies', { title: 'Companies', render: companiesPage }],
  ['event-tokens', { title: 'Event tokens', render: eventTokensPage }],
  ['api-keys', { title: 'API keys', render: apiKeysPage }],
  ['sites', { title: 'Sites', render: sitesPage }],
  ['visitors', { title: 'Visitors', render: visitorsPage }],
  ['segments', { title: 'Segments', render: segmentsPage }],
  ['page-rules', { title: 'Page rules', render: pageRulesPage }],
  ['email-links', { title: 'Email links', render: emailLinksPage }],
  ['playbooks', { title: 'Playbooks', render: playbooksPage }],
  ['enrollments', { title: 'Enrollments', render: enrollmentsPage }],
  ['events', { title: 'Recent events', render: eventsPage }],
  ['receipt', { title: 'Event receipt', render: receiptPage }],
  ['suppressions', { title: 'Suppressions', render: suppressionsPage }],
  ['usage', { title: 'Usage', render: usagePage }],
  ['webhooks', { title: 'Webhooks', render: webhooksPage }],
  ['alerts', { title: 'Alerts', render: alertsPage }],
]);

interface Route {
  name: string;
  params: URLSearchParams;
}

function currentRoute(): Route | null {
  if (!location.hash.startsWith('#/')) return null;
  const [name = '', query = ''] = location.hash.slice(2).split('?');
  return PAGES.has(name) ? { name, params: new URLSearchParams(query) } : null;
}

export function render(): void {
  const main = $('main');
  const signedIn = isSignedIn();
  $('nav').hidden = !signedIn;
  $('sign-out').hidden = !signedIn;
  const root = h('div', { class: 'page' });
  main.replaceChildren(root);
  if (!signedIn) {
    document.title = 'Sign in · Glimpse console';
    signInPage(root, openConsole);
    return;
  }
  let route = currentRoute();
  if (!route) {
    history.replaceState(null, '', `#/${HOME}`);
    route = { name: HOME, params: new URLSearchParams() };
  }
  const page = PAGES.get(route.name);
  if (!page) return;
  document.title = `${page.title} · Glimpse console`;
  for (const link of $('nav').querySelectorAll('a')) {
    if (link.getAttribute('href') === `#/${route.name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // The API's refusal of a page the person has left would be reported on another page: dropped.
  void Promise.resolve(page.render(root, route.params)).catch((err: unknown) => (root.isConnected || !(err instanceof ApiError)) && fail(err));
}

// Signed in: the page the address names (the home page if none), its heading focused.
function openConsole(): void {
  if (!currentRoute()) history.replaceState(null, '', `#/${HOME}`);
  render();
  focusHeading();
}

export function focusHeading(): void {
  $('main').querySelector('h1')?.focus();
}
