// account create / delete / workflows (the workflows add-on); event-token create / revoke. All through
// a gateway's operator API (GLIMPSE_URL or --url, GLIMPSE_OPERATOR_TOKEN), never the database: the
// gateway writes the account and its event to the identity outbox in one transaction and publishes
// it at once; if it cannot, the event stays queued and its outbox publisher sends it (every
// ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS). Event tokens are created under the gateway's configured cap.
import { required, UsageError, type Command } from '../command.js';
import { accountId, OPERATOR_HELP, revokeCommand, urlOption } from '../operator-command.js';
import { configuredApi, type OperatorAccount } from '../operator-api.js';

/** Where the account's event is: on the accounts topic, or in the outbox for the gateway to publish. */
export type AccountEventDelivery = 'published' | 'queued';

function eventLine(type: string, delivery: AccountEventDelivery): string {
  return delivery === 'published' ? `${type} published on the accounts topic` : `${type} queued: not published now; the gateway's outbox publisher sends it`;
}

export const accountCommands: Command[] = [
  {
    words: ['account', 'create'],
    summary: 'create an account (with the workflows add-on only with --workflows)',
    usage: `glimpse account create --name NAME [--workflows] [--url URL] [--json]\n\n  --workflows  grant the workflows add-on (events, event tokens, playbooks, page rules); without it those answer 403 addon_required\n\nPOST /operator/accounts. ${OPERATOR_HELP}`,
    options: { name: { type: 'string' }, workflows: { type: 'boolean' }, ...urlOption },
    async run({ values }) {
      const name = required(values, 'name');
      const created = (await configuredApi(values).call('POST', '/operator/accounts', { name, workflows: values.workflows === true })) as OperatorAccount & {
        event: AccountEventDelivery;
      };
      return { id: created.id, workflows: created.addons.workflows, event: created.event };
    },
    human: (r) => {
      const { id, workflows, event } = r as { id: string; workflows: boolean; event: AccountEventDelivery };
      const addon = workflows ? 'workflows add-on: yes' : `workflows add-on: no (grant it with: glimpse account workflows --account ${id} --on)`;
      return `account created: ${id}\n${addon}\n${eventLine('account.created', event)}`;
    },
  },
  {
    words: ['account', 'workflows'],
    summary: 'show, grant (--on) or remove (--off) the workflows add-on of an account',
    usage: [
      'glimpse account workflows --account ID [--on | --off] [--url URL] [--json]',
      '',
      'The workflows add-on covers POST /events and /events/batch, event-token creation, playbooks (and',
      'their dry run) and page rules; without it they answer 403 {"error": "addon_required"}. Without',
      '--on or --off: shows whether the account has it. After --off, tokens and keys already issued lose',
      "those endpoints within the gateway's credential cache window (AUTH_CACHE_TTL_MS, 2 s by default);",
      'events already accepted are still applied to the playbooks.',
      '',
      "Goes through a gateway's operator API (GET /operator/accounts/ID, PUT or DELETE",
      '/operator/accounts/ID/addons/workflows), never the database:',
      '  --url URL                 the gateway (default: GLIMPSE_URL)',
      "  GLIMPSE_OPERATOR_TOKEN    the operator token, the gateway's OPERATOR_TOKEN (environment only,",
      '                            so it is not in the process list or the shell history)',
    ].join('\n'),
    options: { account: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' }, ...urlOption },
    async run({ values }) {
      const id = required(values, 'account');
      if (values.on && values.off) throw new UsageError('give --on or --off, not both');
      const path = `/operator/accounts/${encodeURIComponent(id)}`;
      const method = values.on ? 'PUT' : values.off ? 'DELETE' : 'GET';
      const account = (await configuredApi(values).call(method, method === 'GET' ? path : `${path}/addons/workflows`)) as OperatorAccount;
      return { id: account.id, name: account.name, workflows: account.addons.workflows };
    },
    human: (r) => {
      const { id, workflows } = r as { id: string; workflows: boolean };
      return `account ${id}: workflows add-on ${workflows ? 'on' : 'off'}`;
    },
  },
  {
    words: ['account', 'delete'],
    summary: 'delete an account with its tokens and keys; the other services delete its data',
    usage: `glimpse account delete --account ID [--url URL] [--json]\n\nDELETE /operator/accounts/ID. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const id = accountId(values);
      const deleted = (await configuredApi(values).call('DELETE', `/operator/accounts/${id}`)) as {
        id: string;
        deletedAt: string;
        event: AccountEventDelivery;
      };
      return { id: deleted.id, deleted: true, deletedAt: deleted.deletedAt, event: deleted.event };
    },
    human: (r) => {
      const { id, event } = r as { id: string; event: AccountEventDelivery };
      return `account ${id} deleted, with its event tokens and API keys\n${eventLine('account.deleted', event)}; the playbook, enrichment and webhooks services delete its data when it reaches them`;
    },
  },
  {
    words: ['event-token', 'create'],
    summary: 'create an event token for POST /events (shown once)',
    usage: `glimpse event-token create --account ID [--url URL] [--json]\n\nAn account without the workflows add-on gets none (addon_required), and an account at the gateway's\nEVENT_TOKENS_PER_ACCOUNT gets limit_reached, as on POST /account/event-tokens.\n\nPOST /operator/accounts/ID/account/event-tokens. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const { id, token } = (await configuredApi(values).forAccount(accountId(values), 'POST', '/event-tokens')) as { id: string; token: string };
      return { id, token };
    },
    human: (r) => {
      const { id, token } = r as { id: string; token: string };
      return `event token ${id}\n${token}\n(store it now: it is not shown again)`;
    },
  },
  revokeCommand({ word: 'event-token', noun: 'event token', summary: 'revoke an event token', idName: 'TOKEN_ID', path: 'event-tokens' }),
];
