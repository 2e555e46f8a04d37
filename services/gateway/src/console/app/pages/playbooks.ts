// Playbooks: the list (edit, test a trigger, enrollments, delete) and the create/edit form, whose
// triggers are picked from the event names the account has sent (playbook-triggers.ts).
import { api, invalid } from '../api';
import type { List, Playbook } from '../api-types';
import { field, listChanged, loading, pageHeading, tableOr } from '../components';
import { h, hidden } from '../dom';
import { EVENT_NAME, notAnEventName } from '../event-name';
import { names, when } from '../format';
import { action, say } from '../messages';
import { dryRunForm } from './playbook-dry-run';
import { DEFAULT_REENROLLMENT, policyLabel, REENROLLMENT } from './playbook-terms';
import { triggerPicker } from './playbook-triggers';

export async function playbooksPage(root: HTMLElement): Promise<void> {
  let playbooks: Playbook[] = [];
  let editing: Playbook | null = null;
  const list = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your playbooks');
  const formHeading = h('h2', { id: 'playbook-form-title' });
  const nameInput = h('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off' });
  const picker = triggerPicker();
  const exitsInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const policies = h(
    'fieldset',
    { class: 'policies' },
    h('legend', {}, 'Re-enrollment'),
    h('p', { class: 'hint' }, 'What a trigger does for a person who was enrolled in this playbook before.'),
    REENROLLMENT.map(([value, label, what]) =>
      h(
        'div',
        { class: 'check' },
        h('input', { type: 'radio', name: 'reenrollment', value, id: `reenrollment-${value}`, 'aria-describedby': `reenrollment-${value}-hint` }),
        h('label', { for: `reenrollment-${value}` }, label),
        h('span', { class: 'hint', id: `reenrollment-${value}-hint` }, what),
      ),
    ),
  );
  const policyInputs = () => [...policies.querySelectorAll<HTMLInputElement>('input[name=reenrollment]')];
  const tester = h('div', { class: 'results' });
  const submit = h('button', { type: 'submit' });
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => edit(null) }, 'Cancel');
  const form = h(
    'form',
    { class: 'playbook-form', 'aria-labelledby': 'playbook-form-title', onsubmit: action(save) },
    formHeading,
    field('playbook-name', 'Name', nameInput),
    h(
      'fieldset',
      { 'aria-describedby': 'triggers-hint' },
      h('legend', {}, 'Triggers'),
      h(
        'p',
        { class: 'hint', id: 'triggers-hint' },
        'An event with one of these names starts an enrollment. Only names this account has already sent are offered.',
      ),
      picker.element,
      h('button', { type: 'button', class: 'secondary', onclick: action(picker.load) }, 'Refresh event names'),
    ),
    field(
      'playbook-exits',
      'Exits',
      exitsInput,
      'Comma-separated event names that stop an enrollment, e.g. demo_booked, purchase. They need not have been sent yet.',
    ),
    policies,
    h('div', { class: 'actions' }, submit, cancel),
  );

  function edit(playbook: Playbook | null) {
    editing = playbook;
    formHeading.textContent = playbook ? `Edit playbook “${playbook.name}”` : 'New playbook';
    submit.textContent = playbook ? 'Save changes' : 'Create playbook';
    cancel.hidden = !playbook;
    nameInput.value = playbook?.name ?? '';
    exitsInput.value = playbook?.exits.join(', ') ?? '';
    exitsInput.removeAttribute('aria-invalid');
    picker.check(playbook?.triggers ?? []);
    for (const radio of policyInputs()) radio.checked = radio.value === (playbook?.reenrollment ?? DEFAULT_REENROLLMENT);
    if (playbook) nameInput.focus();
  }

  async function save() {
    const exits = exitsInput.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = exits.find((n) => !EVENT_NAME.test(n));
    if (bad !== undefined) {
      exitsInput.setAttribute('aria-invalid', 'true');
      exitsInput.focus();
      throw invalid(`Exit ${notAnEventName(bad)}`);
    }
    exitsInput.removeAttribute('aria-invalid');
    const reenrollment = policyInputs().find((r) => r.checked)?.value ?? DEFAULT_REENROLLMENT;
    const input = { name: nameInput.value.trim(), triggers: picker.checked(), exits, reenrollment };
    const saved = editing ? await api<Playbook>('PATCH', `playbooks/${editing.id}`, input) : await api<Playbook>('POST', 'playbooks', input);
    const verb = editing ? 'saved' : 'created';
    edit(null);
    await load();
    say(`Playbook “${saved.name}” ${verb}.`);
  }

  async function remove(playbook: Playbook) {
    if (!confirm(`Delete playbook “${playbook.name}”? Its enrollments are deleted with it.`)) return;
    await api('DELETE', `playbooks/${playbook.id}`);
    if (editing?.id === playbook.id) edit(null);
    if (tester.dataset.playbook === playbook.id) tester.replaceChildren();
    await listChanged(load, listHeading, `Playbook “${playbook.name}” deleted.`);
  }

  async function load() {
    ({ items: playbooks } = await api<List<Playbook>>('GET', 'playbooks'));
    if (!list.isConnected) return;
    const rows = playbooks.map((p) => [
      p.name,
      names(p.triggers),
      names(p.exits),
      policyLabel(p.reenrollment),
      when(p.updatedAt),
      h(
        'div',
        { class: 'row-actions' },
        h('button', { type: 'button', class: 'secondary', onclick: () => edit(p) }, 'Edit', hidden(` ${p.name}`)),
        h('button', { type: 'button', class: 'secondary', onclick: () => test(p) }, 'Test a trigger', hidden(` of ${p.name}`)),
        h('a', { href: `#/enrollments?playbook=${encodeURIComponent(p.id)}` }, 'Enrollments', hidden(` in ${p.name}`)),
        h('button', { type: 'button', class: 'danger', onclick: action(() => remove(p)) }, 'Delete', hidden(` ${p.name}`)),
      ),
    ]);
    list.replaceChildren(tableOr(h('p', {}, 'No playbooks yet.'), 'Playbooks', ['Name', 'Triggers', 'Exits', 'Re-enrollment', 'Updated', 'Actions'], rows));
  }

  function test(playbook: Playbook) {
    const close = () => {
      tester.replaceChildren();
      delete tester.dataset.playbook;
      listHeading.focus();
    };
    tester.dataset.playbook = playbook.id;
    const policyOf = (id: string) => playbooks.find((p) => p.id === id)?.reenrollment;
    const { elements, focus } = dryRunForm(playbook, policyOf, close);
    tester.replaceChildren(...elements);
    focus();
  }

  edit(null);
  root.append(
    ...pageHeading('Playbooks', 'A playbook starts an enrollment for a person when an event names one of its triggers, and stops it on one of its exits.'),
    listHeading,
    list,
    tester,
    form,
  );
  await Promise.all([load(), picker.load()]);
}
