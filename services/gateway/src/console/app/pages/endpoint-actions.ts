// What the Alerts and Webhooks pages both do from an endpoint's row: link to its deliveries,
// disable it or enable it again, delete it; after a change the list is loaded again.
import { api } from '../api';
import type { Webhook } from '../api-types';
import { listChanged } from '../components';
import { h, hidden } from '../dom';
import { action } from '../messages';

/** A page's list of endpoints: how to load it again, and its heading (which takes the focus after a change). */
export interface EndpointList {
  load: () => Promise<void>;
  heading: HTMLElement;
}

/** The link to an endpoint's deliveries, on the Webhooks page. */
export const deliveriesLink = (w: Webhook, label: string): HTMLAnchorElement =>
  h('a', { href: `#/webhooks?endpoint=${encodeURIComponent(w.id)}` }, label, hidden(` to ${w.url}`));

/** The Disable button of an enabled endpoint, the Re-enable button of a disabled one. */
export const enableButton = (w: Webhook, endpoints: EndpointList): HTMLButtonElement =>
  h(
    'button',
    { type: 'button', class: 'secondary', onclick: action(() => setEnabled(w, !w.enabled, endpoints)) },
    w.enabled ? 'Disable' : 'Re-enable',
    hidden(` ${w.url}`),
  );

/** The Delete button of an endpoint. */
export const deleteButton = (w: Webhook, endpoints: EndpointList): HTMLButtonElement =>
  h('button', { type: 'button', class: 'danger', onclick: action(() => remove(w, endpoints)) }, 'Delete', hidden(` ${w.url}`));

// Enabling sends again what was pending.
async function setEnabled(w: Webhook, enabled: boolean, endpoints: EndpointList): Promise<void> {
  await api('PATCH', `webhooks/${w.id}`, { enabled });
  await listChanged(
    endpoints.load,
    endpoints.heading,
    enabled ? `Endpoint ${w.url} enabled: what was pending is sent again now.` : `Endpoint ${w.url} disabled.`,
  );
}

// Once confirmed: its pending deliveries are dropped.
async function remove(w: Webhook, endpoints: EndpointList): Promise<void> {
  if (!confirm(`Delete the endpoint ${w.url}? Its pending deliveries are dropped.`)) return;
  await api('DELETE', `webhooks/${w.id}`);
  await listChanged(endpoints.load, endpoints.heading, `Endpoint ${w.url} deleted.`);
}
