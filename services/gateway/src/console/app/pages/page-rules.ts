// Page rules: a page view of an identified visitor matching a path pattern becomes an event.
import { api, invalid } from '../api';
import type { List, PageRule } from '../api-types';
import { field, listChanged, loading, pageHeading, tableOr } from '../components';
import { h, hidden } from '../dom';
import { EVENT_NAME, notAnEventName } from '../event-name';
import { when } from '../format';
import { action, say } from '../messages';

const PAGE_RULE_PATTERN = /^\/\S{0,255}$/;

export async function pageRulesPage(root: HTMLElement): Promise<void> {
  const list = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your page rules');
  const pattern = h('input', { type: 'text', required: true, maxlength: '256', autocomplete: 'off', spellcheck: 'false', placeholder: '/pricing*' });
  const event = h('input', { type: 'text', required: true, maxlength: '64', autocomplete: 'off', spellcheck: 'false', placeholder: 'viewed_pricing' });
  const form = h(
    'form',
    { class: 'create', onsubmit: action(add) },
    field('rule-pattern', 'Page path pattern', pattern, '* matches any characters, e.g. /pricing* or /docs/*/install.'),
    field('rule-event', 'Event', event, 'The event name a playbook can start on.'),
    h('button', { type: 'submit' }, 'Add rule'),
  );

  async function add() {
    const body = { pattern: pattern.value.trim(), event: event.value.trim() };
    const checks: [HTMLInputElement, boolean, string][] = [
      [pattern, PAGE_RULE_PATTERN.test(body.pattern), 'A pattern is a path starting with /, up to 256 characters, no spaces.'],
      [event, EVENT_NAME.test(body.event), notAnEventName(body.event)],
    ];
    for (const [input, ok, message] of checks) {
      if (ok) input.removeAttribute('aria-invalid');
      else {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        throw invalid(message);
      }
    }
    await api('POST', 'page-rules', body);
    form.reset();
    await load();
    say(`Rule added: a page view of ${body.pattern} becomes ${body.event}.`);
  }

  async function load() {
    const { items } = await api<List<PageRule>>('GET', 'page-rules');
    if (!list.isConnected) return;
    const rows = items.map((r) => [
      h('code', {}, r.pattern),
      h('code', {}, r.event),
      when(r.createdAt ?? r.created_at),
      h('button', { type: 'button', class: 'danger', onclick: action(() => remove(r)) }, 'Delete', hidden(` rule ${r.pattern}`)),
    ]);
    list.replaceChildren(tableOr(h('p', {}, 'No page rules yet.'), 'Page rules', ['Pattern', 'Event', 'Created', 'Actions'], rows));
  }

  async function remove(rule: PageRule) {
    if (!confirm(`Delete the rule ${rule.pattern} → ${rule.event}? Page views stop becoming this event.`)) return;
    await api('DELETE', `page-rules/${encodeURIComponent(rule.id)}`);
    await listChanged(load, listHeading, `Rule ${rule.pattern} deleted.`);
  }

  root.append(
    ...pageHeading(
      'Page rules',
      'A page view of an identified visitor that matches a rule becomes that event for the person, at most once per rule per session, through the same pipeline as your events: a playbook can start on “viewed pricing”.',
    ),
    form,
    listHeading,
    list,
  );
  await load();
}
