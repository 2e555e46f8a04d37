// The receipt of one event: what it did to the playbooks that opt in to its name, and why it
// left the others as they were. Looked up by the X-Event-Id; linked from the recent events.
import { api, invalid } from '../api';
import type { Receipt, ReceiptPlaybook } from '../api-types';
import { field, filtersForm, pageHeading, tableOr } from '../components';
import { h, present, type Child } from '../dom';
import { dateTimeSeconds, when } from '../format';
import { action } from '../messages';
import { reasonText } from './playbook-terms';

export async function receiptPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const idInput = h('input', { type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: '5b0c6f7e-…', class: 'wide' });
  const results = h('div', { class: 'results' });
  const show = action(async () => {
    const eventId = idInput.value.trim();
    if (!eventId) throw invalid('Enter an event id: the X-Event-Id header of the answer to POST /events.');
    history.replaceState(null, '', `#/receipt?${new URLSearchParams({ event: eventId })}`); // linkable, without re-rendering
    results.replaceChildren();
    const receipt = await api<Receipt>('GET', `events/${encodeURIComponent(eventId)}`);
    if (!results.isConnected) return;
    results.replaceChildren(...receiptView(receipt));
  });
  root.append(
    ...pageHeading(
      'Event receipt',
      'What an accepted event did: the playbooks it started and stopped, and why it left each other playbook that opts in to its name as it was.',
    ),
    filtersForm(
      show,
      'Show receipt',
      field(
        'receipt-event',
        'Event id',
        idInput,
        'The X-Event-Id header of the answer to POST /events, or an eventId of a batch result. A receipt exists once the event is applied, usually within a second.',
      ),
    ),
    results,
  );
  const wanted = params.get('event');
  if (wanted) {
    idInput.value = wanted;
    await show();
  }
}

function receiptView(r: Receipt): (Node | string)[] {
  const playbook = (p: ReceiptPlaybook): Child =>
    p.name === null
      ? ['a deleted playbook ', h('code', {}, `${p.id.slice(0, 8)}…`)]
      : h('a', { href: `#/enrollments?playbook=${encodeURIComponent(p.id)}` }, p.name);
  const stoppedIds = new Set(r.stopped.map((p) => p.id));
  const startedIds = new Set(r.started.map((p) => p.id));
  const rows = [
    ...r.started.map((p) => [playbook(p), stoppedIds.has(p.id) ? 'Restarted: stopped and started again' : 'Started an enrollment', '–']),
    ...r.stopped.filter((p) => !startedIds.has(p.id)).map((p) => [playbook(p), 'Stopped the enrollment', '–']),
    ...r.unchanged.map((p) => [playbook(p), 'Left as it was', reasonText(p.reason, p.reason === 'reenrollment_policy' ? 'once' : null)]),
  ];
  return present(
    h('h2', {}, 'Receipt of event ', h('code', {}, r.eventId)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Event'),
      h('dd', {}, r.event === null ? 'not opted in to by any playbook' : h('code', {}, r.event)),
      h('dt', {}, 'Applied'),
      h('dd', {}, when(r.appliedAt, '–', dateTimeSeconds)),
    ),
    r.personErased ? h('p', { class: 'notice' }, 'The person has been erased since: the enrollments it changed no longer carry their email.') : null,
    tableOr(
      h('p', {}, 'No playbook opts in to this event’s name: it changed no enrollment.'),
      `What event ${r.eventId} did`,
      ['Playbook', 'What it did', 'Why'],
      rows,
    ),
  );
}
