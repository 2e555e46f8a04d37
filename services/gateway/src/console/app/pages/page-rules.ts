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

/** The form's inputs. */
interface RuleInputs {
  pattern: HTMLInputElement;
  event: HTMLInputElement;
  weight: HTMLInputElement;
}

/** The page's list of rules: how to load it again, and its heading. */
interface RulesList {
  load: () => Promise<void>;
  heading: HTMLElement;
}

export async function pageRulesPage(root: HTMLElement): Promise<void> {
  const list = h('div', {}, loading());
  const rules: RulesList = { heading: h('h2', { tabindex: '-1' }, 'Your page rules'), load: () => loadRules(list, rules) };
  root.append(
    ...pageHeading(
      'Page rules',
      'A page view of an identified visitor that matches a rule with an event becomes that event for the person, at most once per rule per session, through the same pipeline as your events: a playbook can start on “viewed pricing”. A rule with intent points adds them to any visitor’s intent score, once per session (the weights of sessions, engaged time and events are under Intent on the API: GET and PUT /account/intent).',
    ),
    ruleForm(rules),
    rules.heading,
    list,
  );
  await rules.load();
}

// The form that adds a rule: a pattern, with an event, intent points or both.
function ruleForm(rules: RulesList): HTMLFormElement {
  const inputs: RuleInputs = {
    pattern: h('input', { type: 'text', required: true, maxlength: '256', autocomplete: 'off', spellcheck: 'false', placeholder: '/pricing*' }),
    event: h('input', { type: 'text', maxlength: '64', autocomplete: 'off', spellcheck: 'false', placeholder: 'viewed_pricing' }),
    weight: h('input', { type: 'number', min: '0', max: '100', step: 'any', inputmode: 'decimal', placeholder: '20' }),
  };
  const form: HTMLFormElement = h(
    'form',
    { class: 'create', onsubmit: action(() => addRule(form, inputs, rules)) },
    field('rule-pattern', 'Page path pattern', inputs.pattern, '* matches any characters, e.g. /pricing* or /docs/*/install.'),
    field(
      'rule-event',
      'Event',
      inputs.event,
      'Optional: the event name a playbook can start on (the workflows add-on). Leave it empty for a rule that only scores.',
    ),
    field('rule-weight', 'Intent points', inputs.weight, 'Optional: the points a matching page view adds to the intent score, once per session (0 to 100).'),
    h('button', { type: 'submit' }, 'Add rule'),
  );
  return form;
}

// The form's submit: the fields checked, the rule added, the list loaded again and what the rule does said.
async function addRule(form: HTMLFormElement, { pattern, event, weight }: RuleInputs, rules: RulesList): Promise<void> {
  const eventName = event.value.trim();
  const points = weight.value.trim() === '' ? 0 : Number(weight.value);
  const body = { pattern: pattern.value.trim(), ...(eventName ? { event: eventName } : {}), ...(points > 0 ? { weight: points } : {}) };
  checkAll([
    [pattern, PAGE_RULE_PATTERN.test(body.pattern), 'A pattern is a path starting with /, up to 256 characters, no spaces.'],
    [event, eventName === '' || EVENT_NAME.test(eventName), notAnEventName(eventName)],
    [weight, Number.isFinite(points) && points >= 0 && points <= 100, 'Intent points are a number from 0 to 100.'],
    [event, eventName !== '' || points > 0, 'Give the rule an event, intent points, or both.'],
  ]);
  await api('POST', 'page-rules', body);
  form.reset();
  await rules.load();
  say(
    `Rule added: a page view of ${body.pattern} ${[eventName ? `becomes ${eventName}` : '', points > 0 ? `scores ${points} points` : ''].filter(Boolean).join(' and ')}.`,
  );
}

// Each check in turn: an input that passes is no longer marked invalid; the first that fails is marked, focused and throws its message.
function checkAll(checks: [input: HTMLInputElement, ok: boolean, message: string][]): void {
  for (const [input, ok, message] of checks) {
    if (ok) input.removeAttribute('aria-invalid');
    else {
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      throw invalid(message);
    }
  }
}

// Every rule as a table (or a line saying there is none yet).
async function loadRules(list: HTMLElement, rules: RulesList): Promise<void> {
  const { items } = await api<List<PageRule>>('GET', 'page-rules');
  if (!list.isConnected) return;
  const rows = items.map((r) => [
    h('code', {}, r.pattern),
    r.event ? h('code', {}, r.event) : h('span', { class: 'muted' }, 'none (scores only)'),
    String(r.weight ?? 0),
    when(r.createdAt),
    h('button', { type: 'button', class: 'danger', onclick: action(() => removeRule(r, rules)) }, 'Delete', hidden(` rule ${r.pattern}`)),
  ]);
  list.replaceChildren(tableOr(h('p', {}, 'No page rules yet.'), 'Page rules', ['Pattern', 'Event', 'Intent points', 'Created', 'Actions'], rows));
}

// Once confirmed: the rule deleted (its page views stop becoming events and scoring), the list loaded again.
async function removeRule(rule: PageRule, rules: RulesList): Promise<void> {
  if (!confirm(`Delete the rule ${rule.pattern}? Its page views stop becoming events and scoring.`)) return;
  await api('DELETE', `page-rules/${encodeURIComponent(rule.id)}`);
  await listChanged(rules.load, rules.heading, `Rule ${rule.pattern} deleted.`);
}
