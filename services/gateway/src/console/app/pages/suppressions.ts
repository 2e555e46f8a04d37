// Suppressions (a suppressed person's events start nothing) and erasure of a person, behind a
// confirm step. Emails stay out of the URL: they are typed, listed and sent, nothing else.
import { api, call } from '../api';
import type { Paged, Suppressed, Suppression } from '../api-types';
import { field, filtersForm, listChanged, pageHeading } from '../components';
import { h, hidden } from '../dom';
import { plural, when } from '../format';
import { action, say } from '../messages';
import { pagedTable } from '../paged-table';
import { erasureForm } from './erase-person';

const SUPPRESSIONS_PAGE_SIZE = 25;

export async function suppressionsPage(root: HTMLElement): Promise<void> {
  const emailInput = h('input', { type: 'text', inputmode: 'email', autocomplete: 'off', spellcheck: 'false', placeholder: 'ada@example.com' });
  const listHeading = h('h2', { tabindex: '-1' }, 'Suppressed people');
  const list = h('div');

  async function load() {
    const current = pagedTable<Suppression>({
      caption: 'Suppressed people',
      columns: ['Email', 'Suppressed since', 'Actions'],
      empty: 'No one is suppressed.',
      fetchPage: (cursor) =>
        api<Paged<Suppression>>('GET', `suppressions?${new URLSearchParams({ limit: String(SUPPRESSIONS_PAGE_SIZE), ...(cursor ? { cursor } : {}) })}`),
      row: (s) => [
        s.email,
        when(s.createdAt),
        h('button', { type: 'button', class: 'secondary', onclick: action(() => lift(s.email)) }, 'Lift', hidden(` the suppression of ${s.email}`)),
      ],
    });
    list.replaceChildren(current.element);
    await current.load();
  }

  const suppress = action(async () => {
    const { status, data } = await call<Suppressed>('POST', 'suppressions', { email: emailInput.value.trim() });
    emailInput.value = '';
    await load();
    const stopped = data.stoppedEnrollments ? `; ${plural(data.stoppedEnrollments, 'active enrollment')} stopped` : '; no active enrollment to stop';
    say(`${data.email} ${status === 201 ? 'suppressed' : 'was already suppressed'}${stopped}.`);
  });

  async function lift(email: string) {
    await api('DELETE', `suppressions/${encodeURIComponent(email)}`);
    await listChanged(load, listHeading, `The suppression of ${email} is lifted: their next trigger starts playbooks again.`);
  }

  root.append(
    ...pageHeading(
      'Suppressions',
      'A suppressed person’s events are still accepted, but start no playbook (exits still stop). Suppressing someone stops their active enrollments now.',
    ),
    filtersForm(suppress, 'Suppress', field('suppress-email', 'Email to suppress', emailInput)),
    h('h2', {}, 'Erase a person'),
    h(
      'p',
      { class: 'intro' },
      'For a request to be forgotten: removes the email from every playbook table, the recent events and the site visitors tied to it.',
    ),
    // An erasure that deleted a suppression changes the list below.
    ...erasureForm(async (counts) => {
      if (counts.deletedSuppressions) await load();
    }),
    listHeading,
    list,
  );
  await load();
}
