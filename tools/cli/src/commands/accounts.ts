// account create / delete / workflows (the workflows add-on, through the gateway's operator API); event-token create / revoke. Creating or deleting an account writes its
// event to the identity outbox in the same transaction; the CLI then tries to publish the pending
// events to Kafka at once. Without Kafka the command still succeeds: the event stays queued and the
// gateway's publisher sends it (every ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS).
import { accountAddons, accountEventsPending, createAccount, createEventToken, deleteAccount, publishAccountEvents, revokeCredential, workflowsAddonRequired } from '@glimpse/auth';
import type { Db } from '@glimpse/db';
import { createLogger } from '@glimpse/logging';
import { createBatchingProducer, createKafka, kafkaSecurity } from '@glimpse/messaging';
import { required, UsageError, type Command, type Io } from '../command.js';
import { capsOf, loadConfig } from '../config.js';
import { operatorApi, type OperatorAccount } from '../operator-api.js';

/** Where the account's event is: on the accounts topic, or in the outbox for the gateway to publish. */
export type AccountEventDelivery = 'published' | 'queued';

const PUBLISH_ROUNDS = 10;
const ROUND_PAUSE_MS = 200;

/**
 * Publishes the pending account events (the whole outbox, in order), then says whether this
 * account's are out. A gateway publishing at the same moment holds the lock: tried a few times.
 */
export async function publishPendingAccountEvents(db: Db, accountId: string, io: Io): Promise<AccountEventDelivery> {
  let producer: ReturnType<typeof createBatchingProducer> | undefined;
  try {
    const config = loadConfig();
    const kafka = createKafka({
      brokers: config.KAFKA_BROKERS,
      security: kafkaSecurity(config),
      clientId: 'glimpse-cli',
      // The command reports the outcome itself; kafkajs' connection errors would only repeat it.
      logger: createLogger({ service: 'cli', level: 'silent' }),
      retry: { retries: 1, initialRetryTime: 300, maxRetryTime: 1000 },
      connectionTimeoutMs: 3000,
      requestTimeoutMs: 5000,
    });
    producer = createBatchingProducer({ kafka, sendTimeoutMs: 5000 });
    await producer.connect();
    for (let round = 0; round < PUBLISH_ROUNDS; round++) {
      await publishAccountEvents(db, producer, { limit: 1000 });
      if ((await accountEventsPending(db, accountId)) === 0) return 'published';
      await new Promise((r) => setTimeout(r, ROUND_PAUSE_MS));
    }
    io.stderr('note: another publisher (a gateway) holds the account events now; it publishes this one\n');
    return 'queued';
  } catch (err) {
    io.stderr(`note: account event not published now: ${(err as Error).message}\n`);
    return 'queued';
  } finally {
    await producer?.disconnect().catch(() => undefined);
  }
}

function eventLine(type: string, delivery: AccountEventDelivery): string {
  return delivery === 'published'
    ? `${type} published on the accounts topic`
    : `${type} queued: not published now (see the note above); the gateway publishes it`;
}

export const accountCommands: Command[] = [
  {
    words: ['account', 'create'],
    summary: 'create an account (with the workflows add-on only with --workflows)',
    usage: 'glimpse account create --name NAME [--workflows] [--json]\n\n  --workflows  grant the workflows add-on (events, event tokens, playbooks, page rules); without it those answer 403 addon_required',
    options: { name: { type: 'string' }, workflows: { type: 'boolean' } },
    async run({ values, db, io }) {
      const { id, workflows } = await createAccount(db('gateway'), required(values, 'name'), { workflows: values.workflows === true });
      return { id, workflows, event: await publishPendingAccountEvents(db('gateway'), id, io) };
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
      'those endpoints within the gateway\'s credential cache window (AUTH_CACHE_TTL_MS, 2 s by default);',
      'events already accepted are still applied to the playbooks.',
      '',
      'Goes through a gateway\'s operator API (GET /operator/accounts/ID, PUT or DELETE',
      '/operator/accounts/ID/addons/workflows), never the database:',
      '  --url URL                 the gateway (default: GLIMPSE_URL)',
      '  GLIMPSE_OPERATOR_TOKEN    the operator token, the gateway\'s OPERATOR_TOKEN (environment only,',
      '                            so it is not in the process list or the shell history)',
    ].join('\n'),
    options: { account: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' }, url: { type: 'string' } },
    async run({ values }) {
      const id = required(values, 'account');
      if (values.on && values.off) throw new UsageError('give --on or --off, not both');
      const api = operatorApi(loadConfig(), typeof values.url === 'string' ? values.url : undefined);
      const path = `/operator/accounts/${encodeURIComponent(id)}`;
      const method = values.on ? 'PUT' : values.off ? 'DELETE' : 'GET';
      const account = (await api.call(method, method === 'GET' ? path : `${path}/addons/workflows`)) as OperatorAccount;
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
    usage: 'glimpse account delete --account ID [--json]',
    options: { account: { type: 'string' } },
    async run({ values, db, io }) {
      const { id, deletedAt } = await deleteAccount(db('gateway'), required(values, 'account'));
      return { id, deleted: true, deletedAt, event: await publishPendingAccountEvents(db('gateway'), id, io) };
    },
    human: (r) => {
      const { id, event } = r as { id: string; event: AccountEventDelivery };
      return `account ${id} deleted, with its event tokens and API keys\n${eventLine('account.deleted', event)}; the playbook, enrichment and webhooks services delete its data when it reaches them`;
    },
  },
  {
    words: ['event-token', 'create'],
    summary: 'create an event token for POST /events (shown once)',
    usage: 'glimpse event-token create --account ID [--json]\n\nAn account without the workflows add-on gets none (addon_required), as on the API.',
    options: { account: { type: 'string' } },
    async run({ values, db }) {
      const account = required(values, 'account');
      // Event tokens belong to the workflows add-on, here as on POST /account/event-tokens.
      if ((await accountAddons(db('gateway'), account))?.workflows === false) throw workflowsAddonRequired();
      const { id, secret } = await createEventToken(db('gateway'), account, capsOf(loadConfig()).credentials);
      return { id, token: secret };
    },
    human: (r) => {
      const { id, token } = r as { id: string; token: string };
      return `event token ${id}\n${token}\n(store it now: it is not shown again)`;
    },
  },
  {
    words: ['event-token', 'revoke'],
    summary: 'revoke an event token',
    usage: 'glimpse event-token revoke --account ID --id TOKEN_ID [--json]',
    options: { account: { type: 'string' }, id: { type: 'string' } },
    async run({ values, db }) {
      const id = required(values, 'id');
      await revokeCredential(db('gateway'), 'event_token', required(values, 'account'), id);
      return { id, revoked: true };
    },
    human: (r) => `event token ${(r as { id: string }).id} revoked`,
  },
];
