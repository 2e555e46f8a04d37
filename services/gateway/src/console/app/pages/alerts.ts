// Alerts: where segment alerts go. Every endpoint of the account (Slack or webhook; a Slack URL is
// a secret, so the API answers it masked) with its state (a disabled one says why: by hand, after
// failing for a day, or revoked by Slack), its last deliveries and its last failure; a form adds a
// Slack incoming webhook. Signed webhooks are managed on the Webhooks page.
import { api } from '../api';
import type { Delivery, List, Paged, Webhook } from '../api-types';
import { field, listChanged, loading, pageHeading, tableOr } from '../components';
import { h, type Child } from '../dom';
import { names, when } from '../format';
import { action } from '../messages';
import { deleteButton, deliveriesLink, enableButton, type EndpointList } from './endpoint-actions';

const LAST_DELIVERIES = 5;

const SEGMENT_EVENTS: readonly (readonly [type: string, what: string])[] = [
  ['segment.entered', 'a visitor or company entered a segment (at most once per member in the segment’s alert window)'],
  ['segment.digest', 'each segment’s daily digest at your digest hour: new members and top scores'],
];

export async function alertsPage(root: HTMLElement): Promise<void> {
  const list = h('div', {}, loading());
  const endpoints: EndpointList = { heading: h('h2', { tabindex: '-1' }, 'Alert endpoints'), load: () => loadEndpoints(list, endpoints) };
  root.append(
    ...pageHeading(
      'Alerts',
      'When a visitor or company enters a segment, and each day at your digest hour, Glimpse posts an alert to these endpoints: a Slack message with the score, its reasons, the location and the last pages, or a signed segment.entered or segment.digest webhook. Failures are retried for 24 hours; a Slack rate limit is waited out.',
    ),
    h('h2', {}, 'Add a Slack endpoint'),
    slackForm(endpoints),
    endpoints.heading,
    list,
  );
  await endpoints.load();
}

// The form that adds a Slack incoming webhook, posting the segment events ticked.
function slackForm(endpoints: EndpointList): HTMLFormElement {
  const urlInput = h('input', {
    type: 'url',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'https://hooks.slack.com/services/…',
  });
  const form: HTMLFormElement = h(
    'form',
    { class: 'create', onsubmit: action(() => createSlackEndpoint(form, urlInput, endpoints)) },
    field(
      'slack-url',
      'Slack incoming-webhook URL',
      urlInput,
      'In Slack: Apps → Incoming Webhooks → Add to a channel, then copy its URL. Anyone with it can post to the channel: Glimpse shows it masked.',
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Alerts to post'),
      SEGMENT_EVENTS.map(([type, what]) =>
        h(
          'div',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'slack-event', value: type, id: `slack-event-${type}`, checked: true }),
          h('label', { for: `slack-event-${type}` }, h('code', {}, type), ` — ${what}`),
        ),
      ),
    ),
    h('button', { type: 'submit' }, 'Add Slack endpoint'),
  );
  return form;
}

// The form's submit: the endpoint added (the API's default events when none is ticked), the list loaded again.
async function createSlackEndpoint(form: HTMLFormElement, urlInput: HTMLInputElement, endpoints: EndpointList): Promise<void> {
  const events = [...form.querySelectorAll<HTMLInputElement>('input[name=slack-event]:checked')].map((i) => i.value);
  const created = await api<Webhook>('POST', 'webhooks', { kind: 'slack', url: urlInput.value.trim(), ...(events.length ? { events } : {}) });
  form.reset();
  await listChanged(endpoints.load, endpoints.heading, `Slack endpoint ${created.url} added.`);
}

// Every endpoint with its last deliveries, as a table (or a line saying there is none yet).
async function loadEndpoints(list: HTMLElement, endpoints: EndpointList): Promise<void> {
  const { items } = await api<List<Webhook>>('GET', 'webhooks');
  const deliveries = await Promise.all(
    items.map((w) => api<Paged<Delivery>>('GET', `webhooks/${encodeURIComponent(w.id)}/deliveries?limit=${LAST_DELIVERIES}`).then((p) => p.items)),
  );
  if (!list.isConnected) return;
  list.replaceChildren(
    tableOr(
      h('p', {}, 'No endpoints yet: add a Slack endpoint above, or a webhook on the Webhooks page.'),
      'Alert endpoints',
      ['URL', 'Kind', 'Events', 'Status', 'Last deliveries', 'Last failure', 'Actions'],
      items.map((w, i) => endpointRow(w, deliveries[i] ?? [], endpoints)),
    ),
  );
}

// One endpoint's row: what it is, its state, its last deliveries and failure, its buttons.
function endpointRow(w: Webhook, deliveries: Delivery[], endpoints: EndpointList): Child[] {
  return [
    h('code', {}, w.url),
    w.kind === 'slack' ? 'Slack' : 'Webhook',
    names(w.events),
    status(w),
    lastDeliveries(deliveries),
    lastFailure(deliveries),
    h('div', { class: 'row-actions' }, deliveriesLink(w, 'All deliveries'), enableButton(w, endpoints), deleteButton(w, endpoints)),
  ];
}

/** Enabled, or disabled and why: a Slack URL that was revoked says what to do. */
export function status(w: Webhook): Child {
  if (w.enabled) return [h('span', { class: 'badge active' }, 'enabled'), w.failingSince ? [' failing since ', when(w.failingSince)] : ''];
  const why: Child =
    w.disabledReason === 'revoked'
      ? ['revoked: Slack removed this incoming webhook (404 or 410), ', when(w.disabledAt), '; add the channel’s new URL']
      : w.disabledReason === 'failing'
        ? ['after failing continuously, ', when(w.disabledAt)]
        : ['by hand, ', when(w.disabledAt)];
  return [h('span', { class: 'badge stopped' }, 'disabled'), ' ', why];
}

function lastDeliveries(items: Delivery[]): Child {
  if (!items.length) return 'none yet';
  return h(
    'ul',
    { class: 'attempts' },
    items.map((d) =>
      h(
        'li',
        {},
        h('code', {}, d.type),
        ' ',
        h('span', { class: `badge ${d.status === 'delivered' ? 'active' : 'stopped'}` }, d.status),
        ' ',
        when(d.createdAt),
      ),
    ),
  );
}

function lastFailure(items: Delivery[]): Child {
  const failed = items.flatMap((d) => d.attempts.filter((a) => !a.succeeded)).sort((a, b) => b.at.localeCompare(a.at))[0];
  if (!failed) return 'none';
  return [when(failed.at), ': ', failed.error ?? `failed${failed.responseStatus ? ` ${failed.responseStatus}` : ''}`];
}
