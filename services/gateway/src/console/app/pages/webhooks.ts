// Webhook endpoints: subscribe a URL (its signing secret is shown once), enable, disable, rotate
// the secret, delete; and each endpoint's deliveries with every attempt (webhook-deliveries.ts).
import { api, invalid } from '../api';
import type { WebhookSecretRotated } from '@glimpse/api';
import type { CreatedWebhook, List, Webhook } from '../api-types';
import { field, listChanged, loading, pageHeading, secretBox, tableOr } from '../components';
import { h, hidden } from '../dom';
import { names } from '../format';
import { action } from '../messages';
import { status } from './alerts';
import { deliveriesView } from './webhook-deliveries';

const WEBHOOK_EVENTS: readonly (readonly [type: string, what: string, byDefault?: boolean])[] = [
  ['enrollment.started', 'a playbook enrollment started'],
  ['enrollment.stopped', 'a playbook enrollment stopped'],
  ['visitor.identified', 'a site visitor was identified (it carries the person’s email: off unless chosen)', false],
  ['company.visited', 'a named company’s first visit to a site in a day, with its firmographics', false],
  ['segment.entered', 'a visitor or company entered a segment, with its score and reasons (Slack endpoints: the Alerts page)', false],
  ['segment.digest', 'a segment’s daily digest: new members and top scores', false],
];

export async function webhooksPage(root: HTMLElement, params: URLSearchParams): Promise<void> {
  const slot = h('div');
  const list = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your endpoints');
  const deliveries = h('div', { class: 'results' });
  const urlInput = h('input', { type: 'url', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://example.com/glimpse-hooks' });
  const createButton = h('button', { type: 'submit' }, 'Add endpoint');
  const form = h(
    'form',
    { class: 'create', onsubmit: action(create) },
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

  // A new secret replaces whatever the slot showed, and takes the focus.
  function showSecret(title: string, secret: string, onDismiss: () => void) {
    const box = secretBox(title, secret, onDismiss);
    slot.replaceChildren(box);
    box.focus();
  }

  async function create() {
    const events = [...form.querySelectorAll<HTMLInputElement>('input[name=webhook-event]:checked')].map((i) => i.value);
    if (!events.length) throw invalid('Choose at least one event to send.');
    const created = await api<CreatedWebhook>('POST', 'webhooks', { url: urlInput.value.trim(), events });
    form.reset();
    if (created.secret) showSecret(`Signing secret of ${created.url}`, created.secret, () => createButton.focus());
    await load();
  }

  async function load() {
    const { items } = await api<List<Webhook>>('GET', 'webhooks');
    if (!list.isConnected) return;
    const rows = items.map((w) => [
      h('code', {}, w.url),
      names(w.events),
      status(w),
      h(
        'div',
        { class: 'row-actions' },
        h('a', { href: `#/webhooks?endpoint=${encodeURIComponent(w.id)}` }, 'Deliveries', hidden(` to ${w.url}`)),
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: action(() => setEnabled(w, !w.enabled)) },
          w.enabled ? 'Disable' : 'Re-enable',
          hidden(` ${w.url}`),
        ),
        // A Slack endpoint has no signing secret.
        w.kind !== 'slack' && h('button', { type: 'button', class: 'secondary', onclick: action(() => rotate(w)) }, 'Rotate secret', hidden(` of ${w.url}`)),
        h('button', { type: 'button', class: 'danger', onclick: action(() => remove(w)) }, 'Delete', hidden(` ${w.url}`)),
      ),
    ]);
    list.replaceChildren(tableOr(h('p', {}, 'No endpoints yet.'), 'Webhook endpoints', ['URL', 'Events', 'Status', 'Actions'], rows));
  }

  async function setEnabled(w: Webhook, enabled: boolean) {
    await api('PATCH', `webhooks/${w.id}`, { enabled });
    await listChanged(load, listHeading, enabled ? `Endpoint ${w.url} enabled: what was pending is sent again now.` : `Endpoint ${w.url} disabled.`);
  }
  async function rotate(w: Webhook) {
    if (!confirm(`Rotate the signing secret of ${w.url}? The old secret keeps signing alongside the new one for 24 hours.`)) return;
    const rotated = await api<WebhookSecretRotated>('POST', `webhooks/${w.id}/rotate-secret`);
    showSecret(`New signing secret of ${w.url}`, rotated.secret, () => listHeading.focus());
  }
  async function remove(w: Webhook) {
    if (!confirm(`Delete the endpoint ${w.url}? Its pending deliveries are dropped.`)) return;
    await api('DELETE', `webhooks/${w.id}`);
    await listChanged(load, listHeading, `Endpoint ${w.url} deleted.`);
  }

  root.append(
    ...pageHeading(
      'Webhooks',
      'Glimpse sends each playbook start and stop to your endpoints, signed with the endpoint’s secret, and retries failures for 24 hours.',
    ),
    form,
    slot,
    listHeading,
    list,
    deliveries,
  );
  const wanted = params.get('endpoint');
  await Promise.all([load(), wanted ? deliveriesView(deliveries, wanted) : undefined]);
}
