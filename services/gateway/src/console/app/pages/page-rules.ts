// Page rules: a page view matching a path pattern becomes an event (an identified visitor's, with the
// workflows add-on), intent points (any visitor's, its weight), or both; once per rule per session.
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
  const event = h('input', { type: 'text', maxlength: '64', autocomplete: 'off', spellcheck: 'false', placeholder: 'viewed_pricing' });
  const weight = h('input', { type: 'number', min: '0', max: '100', step: 'any', inputmode: 'decimal', placeholder: '20' });
  const form = h(
    'form',
    { class: 'create', onsubmit: action(add) },
    field('rule-pattern', 'Page path pattern', pattern, '* matches any characters, e.g. /pricing* or /docs/*/install.'),
    field('rule-event', 'Event', event, 'Optional: the event name a playbook can start on (the workflows add-on). Leave it empty for a rule that only scores.'),
    field('rule-weight', 'Intent points', weight, 'Optional: the points a matching page view adds to the intent score, once per session (0 to 100).'),
    h('button', { type: 'submit' }, 'Add rule'),
  );

  async function add() {
    const eventName = event.value.trim();
    const points = weight.value.trim() === '' ? 0 : Number(weight.value);
    const body = { pattern: pattern.value.trim(), ...(eventName ? { event: eventName } : {}), ...(points > 0 ? { weight: points } : {}) };
    const checks: [HTMLInputElement, boolean, string][] = [
      [pattern, PAGE_RULE_PATTERN.test(body.pattern), 'A pattern is a path starting with /, up to 256 characters, no spaces.'],
      [event, eventName === '' || EVENT_NAME.test(eventName), notAnEventName(eventName)],
      [weight, Number.isFinite(points) && points >= 0 && points <= 100, 'Intent points are a number from 0 to 100.'],
      [event, eventName !== '' || points > 0, 'Give the rule an event, intent points, or both.'],
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
    say(
      `Rule added: a page view of ${body.pattern} ${[eventName ? `becomes ${eventName}` : '', points > 0 ? `scores ${points} points` : ''].filter(Boolean).join(' and ')}.`,
    );
  }

  async function load() {
    const { items } = await api<List<PageRule>>('GET', 'page-rules');
    if (!list.isConnected) return;
    const rows = items.map((r) => [
      h('code', {}, r.pattern),
      r.event ? h('code', {}, r.event) : h('span', { class: 'muted' }, 'none (scores only)'),
      String(r.weight ?? 0),
      when(r.createdAt),
      h('button', { type: 'button', class: 'danger', onclick: action(() => remove(r)) }, 'Delete', hidden(` rule ${r.pattern}`)),
    ]);
    list.replaceChildren(tableOr(h('p', {}, 'No page rules yet.'), 'Page rules', ['Pattern', 'Event', 'Intent points', 'Created', 'Actions'], rows));
  }

  async function remove(rule: PageRule) {
    if (!confirm(`Delete the rule ${rule.pattern}? Its page views stop becoming events and scoring.`)) return;
    await api('DELETE', `page-rules/${encodeURIComponent(rule.id)}`);
    await listChanged(load, listHeading, `Rule ${rule.pattern} deleted.`);
  }

  root.append(
    ...pageHeading(
      'Page rules',
      'A page view of an identified visitor that matches a rule with an event becomes that event for the person, at most once per rule per session, through the same pipeline as your events: a playbook can start on “viewed pricing”. A rule with intent points adds them to any visitor’s intent score, once per session (the weights of sessions, engaged time and events are under Intent on the API: GET and PUT /account/intent).',
    ),
    form,
    listHeading,
    list,
  );
  await load();
}
