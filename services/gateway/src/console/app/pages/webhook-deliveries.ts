// One endpoint's deliveries, newest first, each with every attempt (status, error, duration).
import { api } from '../api';
import type { Attempt, Delivery, Paged, Webhook } from '../api-types';
import { h } from '../dom';
import { dateTimeSeconds, when } from '../format';
import { action } from '../messages';
import { pagedTable } from '../paged-table';

const attemptText = (a: Attempt): string =>
  `${a.succeeded ? 'ok' : 'failed'}${a.responseStatus ? ` ${a.responseStatus}` : ''}${a.error && !a.succeeded ? ` (${a.error})` : ''}, ${a.durationMs} ms`;

/** Fills `slot` with the deliveries to endpoint `endpointId` and a button that refreshes them. */
export async function deliveriesView(slot: HTMLElement, endpointId: string): Promise<void> {
  const endpoint = await api<Webhook>('GET', `webhooks/${encodeURIComponent(endpointId)}`);
  const paged = pagedTable<Delivery>({
    caption: `Deliveries to ${endpoint.url}`,
    columns: ['Scheduled', 'Event', 'Status', 'Attempts', 'Next attempt'],
    empty: 'Nothing delivered to this endpoint yet.',
    fetchPage: (cursor) =>
      api<Paged<Delivery>>(
        'GET',
        `webhooks/${encodeURIComponent(endpointId)}/deliveries?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`,
      ),
    row: (d) => [
      when(d.createdAt, '–', dateTimeSeconds),
      h('code', {}, d.type),
      h('span', { class: `badge ${d.status === 'delivered' ? 'active' : 'stopped'}` }, d.status),
      d.attempts.length
        ? h(
            'ol',
            { class: 'attempts' },
            d.attempts.map((a) => h('li', {}, when(a.at, '–', dateTimeSeconds), ': ', attemptText(a))),
          )
        : 'none yet',
      d.status === 'pending' && !endpoint.enabled ? 'paused while the endpoint is disabled' : when(d.nextAttemptAt, '–', dateTimeSeconds),
    ],
  });
  const refresh = h('button', { type: 'button', class: 'secondary', onclick: action(() => deliveriesView(slot, endpointId)) }, 'Refresh deliveries');
  slot.replaceChildren(h('h2', {}, 'Deliveries to ', h('code', {}, endpoint.url)), h('div', { class: 'actions' }, refresh), paged.element);
  await paged.load();
}
