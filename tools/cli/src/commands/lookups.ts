// api-key create / revoke (through the operator API, as the account's own API); account set-credits
// and usage (still on the enrichment database as its role: the enrichment service has no internal
// route for credit limits or all-time totals yet; the account is checked through the operator API).
import { setCreditLimit, usageTotals } from '@glimpse/enrichment';
import { isScope, SCOPES } from '@glimpse/validation';
import { required, UsageError, type Command } from '../command.js';
import { accountId, existingAccountId, OPERATOR_HELP, urlOption } from '../operator-command.js';
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
  {
    words: ['api-key', 'revoke'],
    summary: 'revoke an API key (effective within seconds)',
    usage: `glimpse api-key revoke --account ID --id KEY_ID [--url URL] [--json]\n\nDELETE /operator/accounts/ID/account/api-keys/KEY_ID. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, id: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const id = required(values, 'id');
      await configuredApi(values).forAccount(accountId(values), 'DELETE', `/api-keys/${encodeURIComponent(id)}`);
      return { id, revoked: true };
    },
    human: (r) => `API key ${(r as { id: string }).id} revoked`,
  },
  {
    words: ['account', 'set-credits'],
    summary: 'limit how many enriched records an account may be billed in all ("none" removes the limit)',
    usage: `glimpse account set-credits --account ID --credits N|none [--url URL] [--json]\n\nThe account is checked through the operator API (GLIMPSE_URL, GLIMPSE_OPERATOR_TOKEN); the limit is\nwritten by the enrichment service's code as its role (ENRICHMENT_DATABASE_URL).`,
    options: { account: { type: 'string' }, credits: { type: 'string' }, ...urlOption },
    async run({ values, db }) {
      const raw = required(values, 'credits');
      const credits = raw === 'none' ? null : Number(raw);
      if (credits !== null && (!Number.isInteger(credits) || credits < 0)) throw new UsageError('--credits takes a whole number ≥ 0, or none');
      const id = await existingAccountId(values);
      await setCreditLimit(db('enrichment'), id, credits);
      return { id, credits };
    },
    human: (r) => {
      const { id, credits } = r as { id: string; credits: number | null };
      return `account ${id}: ${credits === null ? 'no credit limit' : `credit limit ${credits}`}`;
    },
  },
  {
    words: ['usage'],
    summary: "an account's billable usage, all time: identity matches and enriched records",
    usage: `glimpse usage --account ID [--url URL] [--json]\n\nThe account is checked through the operator API (GLIMPSE_URL, GLIMPSE_OPERATOR_TOKEN); the totals are\nread by the enrichment service's code as its role (ENRICHMENT_DATABASE_URL).`,
    options: { account: { type: 'string' }, ...urlOption },
    run: async ({ values, db }) => usageTotals(db('enrichment'), await existingAccountId(values)),
    human: (r) => {
      const { identityMatches, enrichedRecords } = r as { identityMatches: number; enrichedRecords: number };
      return `identity matches  ${identityMatches}\nenriched records  ${enrichedRecords}`;
    },
  },
];
