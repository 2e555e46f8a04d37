// api-key create / revoke; account set-credits; usage.
import { accountExists, createApiKey, isScope, revokeCredential, SCOPES, type Scope } from '@glimpse/auth';
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { setCreditLimit, usageTotals } from '@glimpse/enrichment';
import { required, UsageError, type Command } from '../command.js';
import { capsOf, loadConfig } from '../config.js';
import { isUuid } from '@glimpse/validation';


function accountId(values: Record<string, unknown>): string {
  const id = required(values as never, 'account');
  if (!isUuid(id)) throw new AppError('not_found', `account ${id} does not exist`);
  return id;
}

/** The --account id of an account that exists: a typo must not read as an empty account. */
export async function existingAccountId(values: Record<string, unknown>, identity: Db): Promise<string> {
  const id = accountId(values);
  if (!(await accountExists(identity, id))) throw new AppError('not_found', `account ${id} does not exist`);
  return id;
}

function parseScopes(value: string): Scope[] {
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = scopes.find((s) => !isScope(s));
  if (bad !== undefined || scopes.length === 0) throw new UsageError(`--scopes takes a comma-separated list of: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

export const lookupCommands: Command[] = [
  {
    words: ['api-key', 'create'],
    summary: `create an API key with scopes (${SCOPES.join(', ')}); shown once`,
    usage: 'glimpse api-key create --account ID --scopes visitors:read,enrichment:read [--json]',
    options: { account: { type: 'string' }, scopes: { type: 'string' } },
    async run({ values, db }) {
      const scopes = parseScopes(required(values, 'scopes'));
      const { id, secret } = await createApiKey(db('gateway'), accountId(values), scopes, capsOf(loadConfig()).credentials);
      return { id, key: secret, scopes };
    },
    human: (r) => {
      const { id, key, scopes } = r as { id: string; key: string; scopes: string[] };
      return `API key ${id} (${scopes.join(', ')})\n${key}\n(store it now: it is not shown again)`;
    },
  },
  {
    words: ['api-key', 'revoke'],
    summary: 'revoke an API key (effective within seconds)',
    usage: 'glimpse api-key revoke --account ID --id KEY_ID [--json]',
    options: { account: { type: 'string' }, id: { type: 'string' } },
    async run({ values, db }) {
      const id = required(values, 'id');
      await revokeCredential(db('gateway'), 'api_key', accountId(values), id);
      return { id, revoked: true };
    },
    human: (r) => `API key ${(r as { id: string }).id} revoked`,
  },
  {
    words: ['account', 'set-credits'],
    summary: 'limit how many enriched records an account may be billed in all ("none" removes the limit)',
    usage: 'glimpse account set-credits --account ID --credits N|none [--json]',
    options: { account: { type: 'string' }, credits: { type: 'string' } },
    async run({ values, db }) {
      const raw = required(values, 'credits');
      const credits = raw === 'none' ? null : Number(raw);
      if (credits !== null && (!Number.isInteger(credits) || credits < 0)) throw new UsageError('--credits takes a whole number ≥ 0, or none');
      const id = await existingAccountId(values, db('gateway'));
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
    summary: "an account's billable usage: identity matches and enriched records",
    usage: 'glimpse usage --account ID [--json]',
    options: { account: { type: 'string' } },
    run: async ({ values, db }) => usageTotals(db('enrichment'), await existingAccountId(values, db('gateway'))),
    human: (r) => {
      const { identityMatches, enrichedRecords } = r as { identityMatches: number; enrichedRecords: number };
      return `identity matches  ${identityMatches}\nenriched records  ${enrichedRecords}`;
    },
  },
];
