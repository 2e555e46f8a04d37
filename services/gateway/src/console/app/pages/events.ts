// Recent events: the last 24 hours of raw events, newest first, each linked to its receipt.
import { api } from '../api';
import type { Paged, RecentEvent } from '../api-types';
import { pageHeading } from '../components';
import { h, hidden } from '../dom';
import { dateTimeSeconds, when } from '../format';
import { action } from '../messages';
import { pagedTable } from '../paged-table';

export async function eventsPage(root: HTMLElement): Promise<void> {
  const paged = () =>
    pagedTable<RecentEvent>({
      caption: 'Recent events',
      columns: ['Received', 'Event', 'Email', 'Properties', 'Receipt'],
      empty: 'No events in the last 24 hours.',
      fetchPage: (cursor) => api<Paged<RecentEvent>>('GET', `events/recent?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`),
      row: (e) => [
        when(e.receivedAt, '–', dateTimeSeconds),
        h('code', {}, e.event),
        e.email,
        properties(e.properties),
        h('a', { href: `#/receipt?event=${encodeURIComponent(e.eventId)}` }, 'Receipt', hidden(` of event ${e.eventId}`)),
      ],
    });
  let current = paged();
  const results = h('div', {}, current.element);
  const refresh = action(async () => {
    current = paged();
    results.replaceChildren(current.element);
    await current.load();
  });
  root.append(
    ...pageHeading(
      'Recent events',
      'Events received in the last 24 hours, newest first. Raw events are deleted after 24 hours; only their effects on playbooks and the catalog of names are kept.',
    ),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: refresh }, 'Refresh')),
    results,
  );
  await current.load();
}

function properties(props: Record<string, unknown> | null | undefined): Node | string {
  const entries = Object.entries(props ?? {});
  return entries.length ? h('code', { class: 'props' }, entries.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')) : '–';
}
