// Webhook endpoints: subscribe a URL (its signing secret is shown once), enable, disable, rotate
// the secret, delete; and each endpoint's deliveries with every attempt (webhook-deliveries.ts).
import { api, invalid } from '../api';
import type { WebhookSecretRotated } from '@glimpse/api';
import type { CreatedWebhook, List, Webhook } from '../api-types';
import { field, loading, pageHeading, secretBox, tableOr } from '../components';
import { h, hidden } from '../dom';
import { names } from '../format';
import { action } from '../messages';
import { status } from './alerts';
import { deleteButton, deliveriesLink, enableButton, type EndpointList } from './endpoint-actions';
import { deliveriesView } from './webhook-deliveries';

const WEBHOOK_EVENTS: readonly (readonly [type: string, what: string, byDefault?: boolean])[] = [
  ['enrollment.started', 'a playbook enrollment started'],
  ['enrollment.stopped', 'a playbook enrollment stopped'],
  ['visitor.identified', 'a site visitor was identified (it carries the person’s email: off unless chosen)', false],
  ['company.visited', 'a named company’s first visit to a site in a day, with its firmographics', false],
  ['segment.entered', 'a visitor or company entered a segment, with its score and reasons (Slack endpoints: the Alerts page)', false],
  ['segment.digest', 'a segment’s daily digest: new members and top scores', false],
];

/** The page's list of endpoints, and where a new signing secret is shown. */
interface WebhookEndpoints extends EndpointList {
  showSecret: (title: string, secret: string, onDismiss: () => void) => void;
}

export async function webhooksPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const slot = h('div');
  const list = h('div', {}, loading());
  const deliveries = h('div', { class: 'results' });
  const endpoints: WebhookEndpoints = {
    heading: h('h2', { tabindex: '-1' }, 'Your endpoints'),
    load: () => loadEndpoints(list, endpoints),
    showSecret: (title, secret, onDismiss) => showSecret(slot, title, secret, onDismiss),
  };
  root.append(
    ...pageHeading(
      'Webhooks',
      'Glimpse sends each playbook start and stop to your endpoints, signed with the endpoint’s secret, and retries failures for 24 hours.',
    ),
    webhookForm(endpoints),
    slot,
    endpoints.heading,
    list,
    deliveries,
  );
  const wanted = params.get('endpoint');
  await Promise.all([endpoints.load(), wanted ? deliveriesView(deliveries, wanted) : undefined]);
}

// A new secret replaces whatever the slot showed, and takes the focus.
function showSecret(slot: HTMLElement, title: string, secret: string, onDismiss: () => void): void {
  const box = secretBox(title, secret, onDismiss);
  slot.replaceChildren(box);
  box.focus();
}

// The form that subscribes a URL to the events ticked.
function webhookForm(endpoints: WebhookEndpoints): HTMLFormElement {
  const urlInput = h('input', { type: 'url', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://example.com/glimpse-hooks' });
  const createButton = h('button', { type: 'submit' }, 'Add endpoint');
  const form: HTMLFormElement = h(
    'form',
    { class: 'create', onsubmit: action(() => createEndpoint(form, urlInput, createButton, endpoints)) },
    field('webhook-url', 'Endpoint URL', urlInput, 'Glimpse POSTs each event here, signed per Standard Webhooks. Private and internal addresses are refused.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Events to send'),
      WEBHOOK_EVENTS.map(([type, what, byDefault = true]) =>
        h(
          'div',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'webhook-event', value: type, id: `event-${type}`, checked: byDefault }),
          h('label', { for: `event-${type}` }, h('code', {}, type), ` — ${what}`),
        ),
      ),
    ),
    createButton,
  );
  return form;
}

// The form's submit: the endpoint added, its signing secret shown once, the list loaded again.
async function createEndpoint(form: HTMLFormElement, urlInput: HTMLInputElement, createButton: HTMLButtonElement, endpoints: WebhookEndpoints): Promise<void> {
  const events = [...form.querySelectorAll<HTMLInputElement>('input[name=webhook-event]:checked')].map((i) => i.value);
  if (!events.length) throw invalid('Choose at least one event to send.');
  const created = await api<CreatedWebhook>('POST', 'webhooks', { url: urlInput.value.trim(), events });
  form.reset();
  if (created.secret) endpoints.showSecret(`Signing secret of ${created.url}`, created.secret, () => createButton.focus());
  await endpoints.load();
}

// Every endpoint as a table (or a line saying there is none yet).
async function loadEndpoints(list: HTMLElement, endpoints: WebhookEndpoints): Promise<void> {
  const { items } = await api<List<Webhook>>('GET', 'webhooks');
  if (!list.isConnected) return;
  const rows = items.map((w) => [
    h('code', {}, w.url),
    names(w.events),
    status(w),
    h(
      'div',
      { class: 'row-actions' },
      deliveriesLink(w, 'Deliveries'),
      enableButton(w, endpoints),
      // A Slack endpoint has no signing secret.
      w.kind !== 'slack' &&
        h('button', { type: 'button', class: 'secondary', onclick: action(() => rotate(w, endpoints)) }, 'Rotate secret', hidden(` of ${w.url}`)),
      deleteButton(w, endpoints),
    ),
  ]);
  list.replaceChildren(tableOr(h('p', {}, 'No endpoints yet.'), 'Webhook endpoints', ['URL', 'Events', 'Status', 'Actions'], rows));
}

// Once confirmed: a new signing secret, shown once; the old one keeps signing for 24 hours.
async function rotate(w: Webhook, endpoints: WebhookEndpoints): Promise<void> {
  if (!confirm(`Rotate the signing secret of ${w.url}? The old secret keeps signing alongside the new one for 24 hours.`)) return;
  const rotated = await api<WebhookSecretRotated>('POST', `webhooks/${w.id}/rotate-secret`);
  endpoints.showSecret(`New signing secret of ${w.url}`, rotated.secret, () => endpoints.heading.focus());
}
