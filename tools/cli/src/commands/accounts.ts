// account create; event-token create / revoke.
import { createAccount, createEventToken, revokeCredential } from '@glimpse/auth';
import { required, type Command } from '../command.js';

export const accountCommands: Command[] = [
  {
    words: ['account', 'create'],
    summary: 'create an account',
    usage: 'glimpse account create --name NAME [--json]',
    options: { name: { type: 'string' } },
    run: async ({ values, db }) => ({ id: (await createAccount(db('gateway'), required(values, 'name'))).id }),
    human: (r) => `account created: ${(r as { id: string }).id}`,
  },
  {
    words: ['event-token', 'create'],
    summary: 'create an event token for POST /events (shown once)',
    usage: 'glimpse event-token create --account ID [--json]',
    options: { account: { type: 'string' } },
    async run({ values, db }) {
      const { id, secret } = await createEventToken(db('gateway'), required(values, 'account'));
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
