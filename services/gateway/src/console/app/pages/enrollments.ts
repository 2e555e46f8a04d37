// Enrollments: the people in one playbook, by status, newest first; the choice is kept in the
// address (#/enrollments?playbook=…&status=…) so it can be linked.
import { api } from '../api';
import type { Enrollment, List, Paged, Playbook } from '../api-types';
import { field, filtersForm, loading, pageHeading } from '../components';
import { h } from '../dom';
import { when } from '../format';
import { action } from '../messages';
import { pagedTable } from '../paged-table';

const STATUSES: readonly (readonly [value: string, label: string])[] = [
  ['', 'Any'],
  ['active', 'Active'],
  ['stopped', 'Stopped'],
];

export async function enrollmentsPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const placeholder = loading();
  root.append(...pageHeading('Enrollments', 'The people enrolled in a playbook, newest first.'), placeholder);
  const { items: playbooks } = await api<List<Playbook>>('GET', 'playbooks');
  if (!root.isConnected) return;
  placeholder.remove();
  if (!playbooks.length) {
    root.append(h('p', {}, 'No playbooks yet. ', h('a', { href: '#/playbooks' }, 'Create one'), ' first.'));
    return;
  }
  const wanted = params.get('playbook');
  const playbookSelect = h(
    'select',
    {},
    playbooks.map((p) => h('option', { value: p.id, selected: p.id === wanted }, p.name)),
  );
  const statusSelect = h(
    'select',
    {},
    STATUSES.map(([value, label]) => h('option', { value, selected: value === (params.get('status') ?? '') }, label)),
  );
  const results = h('div', { class: 'results' });
  const show = action(async () => {
    const id = playbookSelect.value;
    const status = statusSelect.value;
    const query = new URLSearchParams({ playbook: id, ...(status ? { status } : {}) });
    history.replaceState(null, '', `#/enrollments?${query}`); // linkable, without re-rendering the page
    const name = playbookSelect.selectedOptions[0]?.textContent ?? '';
    const paged = pagedTable<Enrollment>({
      caption: `Enrollments in ${name}`,
      columns: ['Email', 'Status', 'Started', 'Started by', 'Stopped', 'Stopped by'],
      empty: status ? `No ${status} enrollments in “${name}”.` : `No one is enrolled in “${name}” yet.`,
      fetchPage: (cursor) =>
        api<Paged<Enrollment>>(
          'GET',
          `playbooks/${encodeURIComponent(id)}/enrollments?${new URLSearchParams({ limit: '50', ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) })}`,
        ),
      row: (e) => [
        e.email,
        h('span', { class: `badge ${e.status}` }, e.status),
        when(e.startedAt),
        e.startedBy ? h('code', {}, e.startedBy) : '–',
        when(e.stoppedAt),
        e.stoppedBy ? h('code', {}, e.stoppedBy) : '–',
      ],
    });
    results.replaceChildren(h('h2', {}, `Enrollments in “${name}”`), paged.element);
    await paged.load();
  });
  root.append(
    filtersForm(show, 'Show enrollments', field('enrollments-playbook', 'Playbook', playbookSelect), field('enrollments-status', 'Status', statusSelect)),
    results,
  );
  if (wanted) await show();
}
