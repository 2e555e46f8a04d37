// What the commands that go through the operator API share: the --url option, the --account id and
// the help text naming the configuration.
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import { required, type Command, type CommandContext } from './command.js';
import { configuredApi } from './operator-api.js';

export const urlOption = { url: { type: 'string' as const } };

export const OPERATOR_HELP =
  "Goes through a gateway's operator API, never a database: --url URL or GLIMPSE_URL names the gateway,\nGLIMPSE_OPERATOR_TOKEN (environment only) is its OPERATOR_TOKEN.";

/** The --account id; one that is not a UUID is no account (a typo must not read as an empty account). */
export function accountId(values: CommandContext['values']): string {
  const id = required(values, 'account');
  if (!isUuid(id)) throw new AppError('not_found', `account ${id} does not exist`);
  return id.toLowerCase();
}

/** The --account id of an account that exists, asked of the operator API (GET /operator/accounts/ID). */
export async function existingAccountId(values: CommandContext['values']): Promise<string> {
  const id = accountId(values);
  await configuredApi(values).call('GET', `/operator/accounts/${id}`);
  return id;
}

/**
 * `<word> revoke --account ID --id <ID>`: revokes one of the account's credentials through its own
 * API as the operator (DELETE /operator/accounts/ID/account/<path>/<ID>).
 */
export function revokeCommand({ word, noun, summary, idName, path }: { word: string; noun: string; summary: string; idName: string; path: string }): Command {
  return {
    words: [word, 'revoke'],
    summary,
    usage: `glimpse ${word} revoke --account ID --id ${idName} [--url URL] [--json]\n\nDELETE /operator/accounts/ID/account/${path}/${idName}. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, id: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const id = required(values, 'id');
      await configuredApi(values).forAccount(accountId(values), 'DELETE', `/${path}/${encodeURIComponent(id)}`);
      return { id, revoked: true };
    },
    human: (r) => `${noun} ${(r as { id: string }).id} revoked`,
  };
}
