// "Test a trigger": a dry run of one event (prefilled with one of the playbook's triggers) for
// one person, answered by the playbook consumer's own planner; nothing is written.
import { api } from '../api';
import type { DryRun, Playbook } from '../api-types';
import { field, tableOr } from '../components';
import { h, present } from '../dom';
import { action } from '../messages';
import { DRY_RUN_OUTCOMES, reasonText } from './playbook-terms';

/** Answers a playbook's re-enrollment policy as currently listed (the reasons name it). */
type PolicyOf = (id: string) => string | undefined;

/**
 * The dry run's heading, form and result for `playbook`. `policyOf` answers a playbook's
 * re-enrollment policy as currently listed (the reasons name it); `close` is the Close button's.
 */
export function dryRunForm(playbook: Playbook, policyOf: PolicyOf, close: () => void): { elements: HTMLElement[]; focus: () => void } {
  const eventInput = h('input', {
    type: 'text',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    value: playbook.triggers[0] ?? playbook.exits[0] ?? '',
    list: 'dry-run-names',
  });
  const emailInput = h('input', { type: 'text', inputmode: 'email', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'ada@example.com' });
  const result = h('div', { 'aria-live': 'polite' });
  const heading = h('h2', { tabindex: '-1', id: 'dry-run-title' }, `Test a trigger of “${playbook.name}”`);
  const run = action(async () => {
    const body = { event: eventInput.value.trim(), email: emailInput.value.trim() };
    const answer = await api<DryRun>('POST', 'events/dry-run', body);
    if (!result.isConnected) return;
    result.replaceChildren(...dryRunResult(answer, playbook, policyOf));
  });
  const elements = [
    heading,
    h('p', { class: 'hint' }, 'What this event would do for this person now, in every playbook that opts in to its name.'),
    h(
      'form',
      { class: 'filters', 'aria-labelledby': 'dry-run-title', onsubmit: run },
      field('dry-run-event', 'Event name', eventInput),
      h(
        'datalist',
        { id: 'dry-run-names' },
        [...playbook.triggers, ...playbook.exits].map((n) => h('option', { value: n })),
      ),
      field('dry-run-email', 'Email', emailInput),
      h('button', { type: 'submit' }, 'Run dry run'),
      h('button', { type: 'button', class: 'secondary', onclick: close }, 'Close'),
    ),
    result,
  ];
  return { elements, focus: () => emailInput.focus() };
}

// The answer: what the event is to the catalog, then each playbook's outcome (the tested one first).
function dryRunResult(answer: DryRun, playbook: Playbook, policyOf: PolicyOf): (Node | string)[] {
  const mine = answer.playbooks.filter((p) => p.id === playbook.id);
  const others = answer.playbooks.filter((p) => p.id !== playbook.id);
  const rows = [...mine, ...others].map((p) => [
    p.name,
    h('span', { class: `badge ${p.outcome === 'none' ? 'stopped' : 'active'}` }, DRY_RUN_OUTCOMES[p.outcome] ?? p.outcome),
    reasonText(p.reason, policyOf(p.id)),
  ]);
  return present(
    h('h3', {}, 'If ', h('code', {}, answer.event), ' came now for ', answer.email),
    answer.catalog === 'new' ? h('p', {}, h('code', {}, answer.event), ' has never been sent: sending it would add it to the event names.') : null,
    answer.catalog === 'full'
      ? h('p', {}, h('code', {}, answer.event), ' is not one of the event names, which are at their maximum: sending it would be applied but not add it.')
      : null,
    tableOr(
      h('p', {}, 'No playbook opts in to ', h('code', {}, answer.event), ': it would change no enrollment.'),
      `Dry run of ${answer.event}`,
      ['Playbook', 'Outcome', 'Why'],
      rows,
    ),
    h('p', { class: 'muted' }, 'A dry run writes nothing: no enrollment, no event, no webhook.'),
  );
}
