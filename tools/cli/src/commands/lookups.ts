// api-key create / revoke (as the account's own API), account set-credits and usage (the account's
// credit limit and all-time usage, which the enrichment service keeps): all through the operator API.
import { CREDIT_LIMIT_MAX, creditLimitSchema, isScope, SCOPES } from '@glimpse/validation';
import { required, UsageError, type Command } from '../command.js';
import { accountId, OPERATOR_HELP, revokeCommand, urlOption } from '../operator-command.js';
import { configuredApi } from '../operator-api.js';

/** --scopes: a usage error (exit 2) before any call for a scope that does not exist. */
function parseScopes(value: string): string[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.find((s) => !isScope(s));
  if (bad !== undefined || scopes.length === 0) throw new UsageError(`--scopes takes a comma-separated list of: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)];
}

/** --credits: a whole number (the enrichment service's rule) or none; a usage error (exit 2) before any call otherwise. */
export function parseCredits(value: string): number | null {
  if (value === 'none') return null;
  const credits = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!creditLimitSchema.safeParse(credits).success) throw new UsageError(`--credits takes a whole number from 0 to ${CREDIT_LIMIT_MAX}, or none`);
  return credits;
}

export const lookupCommands: Command[] = [
  {
    words: ['api-key', 'create'],
    summary: `create an API key with scopes (${SCOPES.join(', ')}); shown once`,
    usage: `glimpse api-key create --account ID --scopes visitors:read,enrichment:read [--url URL] [--json]\n\nHeld to the gateway's API_KEYS_PER_ACCOUNT, as on POST /account/api-keys.\n\nPOST /operator/accounts/ID/account/api-keys. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, scopes: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const scopes = parseScopes(required(values, 'scopes'));
      const created = (await configuredApi(values).forAccount(accountId(values), 'POST', '/api-keys', { scopes })) as {
        id: string;
        key: string;
        scopes: string[];
      };
      return { id: created.id, key: created.key, scopes: created.scopes };
    },
    human: (r) => {
      const { id, key, scopes } = r as { id: string; key: string; scopes: string[] };
      return `API key ${id} (${scopes.join(', ')})\n${key}\n(store it now: it is not shown again)`;
    },
  },
  revokeCommand({ word: 'api-key', noun: 'API key', summary: 'revoke an API key (effective within seconds)', idName: 'KEY_ID', path: 'api-keys' }),
  {
    words: ['account', 'set-credits'],
    summary: 'limit how many enriched records an account may be billed in all ("none" removes the limit)',
    usage: `glimpse account set-credits --account ID --credits N|none [--url URL] [--json]\n\nN is a whole number from 0 to ${CREDIT_LIMIT_MAX}; a lookup past the limit is 402.\n\nPUT /operator/accounts/ID/credits {"credits": N|null}. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, credits: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const credits = parseCredits(required(values, 'credits'));
      const id = accountId(values);
      const set = (await configuredApi(values).call('PUT', `/operator/accounts/${id}/credits`, { credits })) as { credits: number | null };
      return { id, credits: set.credits };
    },
    human: (r) => {
      const { id, credits } = r as { id: string; credits: number | null };
      return `account ${id}: ${credits === null ? 'no credit limit' : `credit limit ${credits}`}`;
    },
  },
  {
    words: ['usage'],
    summary: "an account's billable usage, all time (identity matches and enriched records) and the persons billed this month",
    usage: `glimpse usage --account ID [--url URL] [--json]\n\nA person whose fields are shown (details lookup, visitor.identified webhook) is billed as an enrichment,\nonce per calendar month (UTC); persons billed counts them this month.\n\nBy day: GET /operator/accounts/ID/account/usage (the account's own usage route).\n\nGET /operator/accounts/ID/usage. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, ...urlOption },
    run: async ({ values }) => configuredApi(values).call('GET', `/operator/accounts/${accountId(values)}/usage`),
    human: (r) => {
      const { identityMatches, enrichedRecords, period } = r as {
        identityMatches: number;
        enrichedRecords: number;
        period?: { start: string; personsBilled: number };
      };
      const lines = [`identity matches  ${identityMatches}`, `enriched records  ${enrichedRecords}`];
      if (period) lines.push(`persons billed    ${period.personsBilled} (since ${period.start})`);
      return lines.join('\n');
    },
  },
];
