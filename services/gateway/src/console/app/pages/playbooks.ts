// Playbooks: the list (edit, test a trigger, enrollments, delete) and the create/edit form, whose
// triggers are picked from the event names the account has sent (playbook-triggers.ts).
import { api, invalid } from '../api';
import type { List, Playbook } from '../api-types';
import { field, listChanged, loading, pageHeading, tableOr } from '../components';
import { h, hidden, type Child } from '../dom';
import { EVENT_NAME, notAnEventName } from '../event-name';
import { names, when } from '../format';
import { action, say } from '../messages';
import { dryRunForm } from './playbook-dry-run';
import { DEFAULT_REENROLLMENT, policyLabel, REENROLLMENT } from './playbook-terms';
import { triggerPicker, type TriggerPicker } from './playbook-triggers';

/** The body of POST /account/playbooks and PATCH /account/playbooks/{id}. */
interface PlaybookInput {
  name: string;
  triggers: string[];
  exits: string[];
  reenrollment: string;
}

interface PlaybookForm {
  element: HTMLFormElement;
  /** Shows `playbook` to edit (its name gets the focus), or a blank new one. */
  fill: (playbook: Playbook | null) => void;
  /** The input as typed, or an ApiError naming the exit that is wrong (which gets the focus). */
  read: () => PlaybookInput;
  /** (Re)loads the event names the triggers are picked from. */
  loadNames: () => Promise<void>;
}

/** What the page's steps share: the playbooks as last listed, the one being edited, and the page's parts. */
interface PlaybooksPage {
  playbooks: Playbook[];
  editing: Playbook | null;
  list: HTMLElement;
  listHeading: HTMLElement;
  tester: HTMLElement;
  form: PlaybookForm;
}

export async function playbooksPage(root: HTMLElement): Promise<void> {
  const page: PlaybooksPage = {
    playbooks: [],
    editing: null,
    list: h('div', {}, loading()),
    listHeading: h('h2', { tabindex: '-1' }, 'Your playbooks'),
    tester: h('div', { class: 'results' }),
    form: playbookForm(
      () => save(page),
      () => edit(page, null),
    ),
  };
  edit(page, null);
  root.append(
    ...pageHeading('Playbooks', 'A playbook starts an enrollment for a person when an event names one of its triggers, and stops it on one of its exits.'),
    page.listHeading,
    page.list,
    page.tester,
    page.form.element,
  );
  await Promise.all([load(page), page.form.loadNames()]);
}

// The create/edit form; `save` is its submit's handler, `cancel` its Cancel button's.
function playbookForm(save: () => Promise<void>, cancel: () => void): PlaybookForm {
  const heading = h('h2', { id: 'playbook-form-title' });
  const nameInput = h('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off' });
  const picker = triggerPicker();
  const exitsInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const policies = reenrollmentFieldset();
  const policyInputs = () => [...policies.querySelectorAll<HTMLInputElement>('input[name=reenrollment]')];
  const submit = h('button', { type: 'submit' });
  const cancelButton = h('button', { type: 'button', class: 'secondary', onclick: cancel }, 'Cancel');
  const element = h(
    'form',
    { class: 'playbook-form', 'aria-labelledby': 'playbook-form-title', onsubmit: action(save) },
    heading,
    field('playbook-name', 'Name', nameInput),
    triggersFieldset(picker),
    field(
      'playbook-exits',
      'Exits',
      exitsInput,
      'Comma-separated event names that stop an enrollment, e.g. demo_booked, purchase. They need not have been sent yet.',
    ),
    policies,
    h('div', { class: 'actions' }, submit, cancelButton),
  );
  function fill(playbook: Playbook | null) {
    heading.textContent = playbook ? `Edit playbook “${playbook.name}”` : 'New playbook';
    submit.textContent = playbook ? 'Save changes' : 'Create playbook';
    cancelButton.hidden = !playbook;
    nameInput.value = playbook?.name ?? '';
    exitsInput.value = playbook?.exits.join(', ') ?? '';
    exitsInput.removeAttribute('aria-invalid');
    picker.check(playbook?.triggers ?? []);
    for (const radio of policyInputs()) radio.checked = radio.value === (playbook?.reenrollment ?? DEFAULT_REENROLLMENT);
    if (playbook) nameInput.focus();
  }
  function read(): PlaybookInput {
    const exits = readExits(exitsInput);
    const reenrollment = policyInputs().find((r) => r.checked)?.value ?? DEFAULT_REENROLLMENT;
    return { name: nameInput.value.trim(), triggers: picker.checked(), exits, reenrollment };
  }
  return { element, fill, read, loadNames: picker.load };
}

// The triggers: a box per event name the account has sent, and a button to load them again.
function triggersFieldset(picker: TriggerPicker): HTMLFieldSetElement {
  return h(
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
  );
}

// The re-enrollment policy: a radio button per policy, with what it does.
function reenrollmentFieldset(): HTMLFieldSetElement {
  return h(
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
}

// The exits as typed, comma-separated; one that is not an event name is refused and gets the focus.
function readExits(input: HTMLInputElement): string[] {
  const exits = input.value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = exits.find((n) => !EVENT_NAME.test(n));
  if (bad !== undefined) {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    throw invalid(`Exit ${notAnEventName(bad)}`);
  }
  input.removeAttribute('aria-invalid');
  return exits;
}

// Fills the form with `playbook` to edit, or empties it for a new one.
function edit(page: PlaybooksPage, playbook: Playbook | null): void {
  page.editing = playbook;
  page.form.fill(playbook);
}

// The form's submit: creates a playbook, or saves the one being edited, then lists it.
async function save(page: PlaybooksPage): Promise<void> {
  const input = page.form.read();
  const saved = page.editing ? await api<Playbook>('PATCH', `playbooks/${page.editing.id}`, input) : await api<Playbook>('POST', 'playbooks', input);
  const verb = page.editing ? 'saved' : 'created';
  edit(page, null);
  await load(page);
  say(`Playbook “${saved.name}” ${verb}.`);
}

// A row's Delete: asks first; the form and the trigger test let go of the playbook if they showed it.
async function remove(page: PlaybooksPage, playbook: Playbook): Promise<void> {
  if (!confirm(`Delete playbook “${playbook.name}”? Its enrollments are deleted with it.`)) return;
  await api('DELETE', `playbooks/${playbook.id}`);
  if (page.editing?.id === playbook.id) edit(page, null);
  if (page.tester.dataset.playbook === playbook.id) page.tester.replaceChildren();
  await listChanged(() => load(page), page.listHeading, `Playbook “${playbook.name}” deleted.`);
}

// The list of playbooks, or the line that says there are none.
async function load(page: PlaybooksPage): Promise<void> {
  ({ items: page.playbooks } = await api<List<Playbook>>('GET', 'playbooks'));
  if (!page.list.isConnected) return;
  const rows = page.playbooks.map((p) => playbookRow(page, p));
  page.list.replaceChildren(tableOr(h('p', {}, 'No playbooks yet.'), 'Playbooks', ['Name', 'Triggers', 'Exits', 'Re-enrollment', 'Updated', 'Actions'], rows));
}

// One playbook's row: its terms, and its actions named for screen readers.
function playbookRow(page: PlaybooksPage, p: Playbook): Child[] {
  return [
    p.name,
    names(p.triggers),
    names(p.exits),
    policyLabel(p.reenrollment),
    when(p.updatedAt),
    h(
      'div',
      { class: 'row-actions' },
      h('button', { type: 'button', class: 'secondary', onclick: () => edit(page, p) }, 'Edit', hidden(` ${p.name}`)),
      h('button', { type: 'button', class: 'secondary', onclick: () => test(page, p) }, 'Test a trigger', hidden(` of ${p.name}`)),
      h('a', { href: `#/enrollments?playbook=${encodeURIComponent(p.id)}` }, 'Enrollments', hidden(` in ${p.name}`)),
      h('button', { type: 'button', class: 'danger', onclick: action(() => remove(page, p)) }, 'Delete', hidden(` ${p.name}`)),
    ),
  ];
}

// A row's "Test a trigger": the dry run form of the playbook, above the create/edit form.
function test(page: PlaybooksPage, playbook: Playbook): void {
  const { tester } = page;
  const close = () => {
    tester.replaceChildren();
    delete tester.dataset.playbook;
    page.listHeading.focus();
  };
  tester.dataset.playbook = playbook.id;
  const policyOf = (id: string) => page.playbooks.find((p) => p.id === id)?.reenrollment;
  const { elements, focus } = dryRunForm(playbook, policyOf, close);
  tester.replaceChildren(...elements);
  focus();
}
