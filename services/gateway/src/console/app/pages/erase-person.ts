// Erasure: the email typed, then a confirm step naming it; the counts the API answers.
import { api, invalid } from '../api';
import type { Erasure } from '../api-types';
import { field, filtersForm, table } from '../components';
import { h } from '../dom';
import { action, say } from '../messages';

/** The erase form and the step under it (confirm, then what was done); `erased` runs after an erasure. */
export function erasureForm(erased: (counts: Erasure) => Promise<void>): HTMLElement[] {
  const eraseInput = h('input', { type: 'text', inputmode: 'email', autocomplete: 'off', spellcheck: 'false', placeholder: 'ada@example.com' });
  const eraseStep = h('div');
  const askErase = action(async () => {
    const email = eraseInput.value.trim();
    if (!email) throw invalid('Enter the email of the person to erase.');
    const title = h('h3', { id: 'erase-confirm-title' }, `Erase ${email}?`);
    const cancel = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          eraseStep.replaceChildren();
          eraseInput.focus();
        },
      },
      'Cancel',
    );
    const confirmButton = h('button', { type: 'button', class: 'danger-solid', onclick: action(() => erase(email)) }, `Erase ${email}`);
    const box = h(
      'section',
      { class: 'confirm-box', 'aria-labelledby': 'erase-confirm-title', tabindex: '-1' },
      title,
      h(
        'p',
        {},
        'Their active enrollments stop; their email is replaced by a keyed hash in enrollments, effects and webhook deliveries (so counts stay right), and their suppression, raw events, visitor identity links and the page-view data of the site visitors and imported visitors tied to them are deleted. This cannot be undone.',
      ),
      h('div', { class: 'actions' }, confirmButton, cancel),
    );
    eraseStep.replaceChildren(box);
    cancel.focus();
  });
  async function erase(email: string) {
    const counts = await api<Erasure>('DELETE', `persons/${encodeURIComponent(email)}`);
    eraseInput.value = '';
    const t = table(`What erasing ${email} did`, ['What', 'Count'], erasureRows(counts), [1]);
    t.classList.add('narrow');
    const heading = h('h3', { tabindex: '-1' }, `${email} erased`);
    eraseStep.replaceChildren(heading, t);
    heading.focus();
    say(`${email} erased.`);
    await erased(counts);
  }
  return [filtersForm(askErase, h('button', { type: 'submit', class: 'danger' }, 'Erase…'), field('erase-email', 'Email to erase', eraseInput)), eraseStep];
}

function erasureRows(counts: Erasure): [string, string][] {
  const optional = (label: string, n: number | undefined): [string, string][] => (typeof n === 'number' ? [[label, String(n)]] : []);
  return [
    ['Active enrollments stopped', String(counts.stoppedEnrollments)],
    ['Enrollments kept with the email hashed', String(counts.hashedEnrollments)],
    ['Playbook effects kept with the email hashed', String(counts.hashedEffects)],
    ['Suppressions deleted', String(counts.deletedSuppressions)],
    ['Raw events deleted', String(counts.deletedRawEvents)],
    ['Webhook deliveries kept with the email hashed', String(counts.hashedDeliveries)],
    // Site visitors once tied to the person (from the visitors service, since the site tag).
    ...optional('Site visitors’ page-view data deleted', counts.deletedVisitors),
    ...optional('Visitor identity links deleted', counts.deletedVisitorLinks),
    // Visitors imported for the account (glimpse import visitors), in the enrichment service.
    ...optional('Imported visitors deleted', counts.deletedImportedVisitors),
    ...optional('Imported visitors’ page views kept with the email hashed', counts.hashedImportedVisitors),
  ];
}
