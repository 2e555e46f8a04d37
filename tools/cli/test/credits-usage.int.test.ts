// `glimpse account set-credits` and `glimpse usage` through a real gateway's operator API, with the
// real enrichment service behind it (which keeps credit limits and usage): they open no database,
// a --credits that is not a whole number or none is a usage error (exit 2) before any call, and an
// unknown account is not_found (exit 1).
import { randomUUID } from 'node:crypto';
import { CREDIT_LIMIT_MAX } from '@glimpse/validation';
import { createTestAccount, testDb } from '../../../test/support/stack';
import { cli, useCliStack } from './operator-stack';

// Both go through the operator API: useCliStack checks that neither opened a database.
useCliStack();

const creditLimit = async (accountId: string) => (await testDb('enrichment').enrichmentCredit.findUnique({ where: { accountId } }))?.creditLimit;
/** The current billing period: the first of the month (UTC). */
const PERIOD = `${new Date().toISOString().slice(0, 7)}-01`;

describe('glimpse account set-credits', () => {
  it('when asked for --help, then it names the operator route and no database', async () => {
    const help = await cli('account', 'set-credits', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: glimpse account set-credits --account ID --credits N|none [--url URL] [--json]');
    expect(help.stdout).toContain('PUT /operator/accounts/ID/credits');
    expect(help.stdout).not.toContain('DATABASE_URL');
    expect((await cli('--help')).stdout).not.toContain('set-credits, usage');
  });

  it('when a limit is set, changed and removed, then the enrichment service holds each, and the output says it', async () => {
    const { accountId } = await createTestAccount();
    const set = await cli('account', 'set-credits', '--account', accountId, '--credits', '5', '--json');
    expect({ code: set.code, stderr: set.stderr }).toEqual({ code: 0, stderr: '' });
    expect(set.json()).toEqual({ id: accountId, credits: 5 });
    expect(await creditLimit(accountId)).toBe(5);

    const changed = await cli('account', 'set-credits', '--account', accountId.toUpperCase(), '--credits', String(CREDIT_LIMIT_MAX));
    expect(changed.code).toBe(0);
    expect(changed.stdout).toBe(`account ${accountId}: credit limit ${CREDIT_LIMIT_MAX}\n`);
    expect(await creditLimit(accountId)).toBe(CREDIT_LIMIT_MAX);

    const removed = await cli('account', 'set-credits', '--account', accountId, '--credits', 'none');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`account ${accountId}: no credit limit\n`);
    expect(await creditLimit(accountId)).toBeNull();
  });

  it.each(['-1', '1.5', 'abc', '1e3', '', String(CREDIT_LIMIT_MAX + 1)])(
    'when --credits is %p, then it exits 2 with the usage, and the limit stays',
    async (value) => {
      const { accountId } = await createTestAccount();
      expect((await cli('account', 'set-credits', '--account', accountId, '--credits', '3')).code).toBe(0);
      // --credits=VALUE: parseArgs takes a separate value starting with a dash for a forgotten one.
      const bad = await cli('account', 'set-credits', '--account', accountId, `--credits=${value}`);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toContain(value === '' ? '--credits is required' : `--credits takes a whole number from 0 to ${CREDIT_LIMIT_MAX}, or none`);
      expect(bad.stderr).toContain('Usage: glimpse account set-credits');
      expect(await creditLimit(accountId)).toBe(3);
    },
  );

  it('when --credits or --account is missing, then it exits 2 naming it', async () => {
    const noCredits = await cli('account', 'set-credits', '--account', randomUUID());
    expect(noCredits.code).toBe(2);
    expect(noCredits.stderr).toContain('--credits is required');
    const noAccount = await cli('account', 'set-credits', '--credits', '3');
    expect(noAccount.code).toBe(2);
    expect(noAccount.stderr).toContain('--account is required');
  });

  it('when the account does not exist, then it exits 1 not_found and writes no limit', async () => {
    const nobody = randomUUID();
    const unknown = await cli('account', 'set-credits', '--account', nobody, '--credits', '3');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`error: not_found: account ${nobody} does not exist\n`);
    expect(unknown.stdout).toBe('');
    expect(await creditLimit(nobody)).toBeUndefined();
    const typo = await cli('account', 'set-credits', '--account', 'acme', '--credits', '3');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('not_found: account acme does not exist');
  });

  it('when the gateway does not answer, then it exits 1 saying so, and the limit stays', async () => {
    const { accountId } = await createTestAccount();
    const res = await cli('account', 'set-credits', '--account', accountId, '--credits', '3', '--url', 'http://127.0.0.1:1');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('the operator API at http://127.0.0.1:1 did not answer');
    expect(await creditLimit(accountId)).toBeUndefined();
  });
});

describe('glimpse usage', () => {
  it('when asked for --help, then it names the operator route and no database', async () => {
    const help = await cli('usage', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('GET /operator/accounts/ID/usage');
    expect(help.stdout).not.toContain('DATABASE_URL');
  });

  it("when an account has usage, then it shows its all-time totals, this account's only", async () => {
    const { accountId } = await createTestAccount();
    const { accountId: other } = await createTestAccount();
    const zero = await cli('usage', '--account', accountId, '--json');
    expect(zero.code).toBe(0);
    expect(zero.json()).toEqual({ identityMatches: 0, enrichedRecords: 0, period: { start: PERIOD, personsBilled: 0 } });

    const db = testDb('enrichment');
    await db.usageDay.createMany({
      data: [
        { accountId, day: new Date('2025-03-01'), identityMatches: 4, enrichedRecords: 3 },
        { accountId: other, day: new Date('2025-03-01'), identityMatches: 50, enrichedRecords: 50 },
      ],
    });
    await db.usageEntry.createMany({ data: [{ accountId, day: new Date() }] });

    const usage = await cli('usage', '--account', accountId, '--json');
    expect(usage.code).toBe(0);
    expect(usage.json()).toEqual({ identityMatches: 5, enrichedRecords: 4, period: { start: PERIOD, personsBilled: 0 } });
    const human = await cli('usage', '--account', accountId);
    expect(human.stdout).toBe(`identity matches  5\nenriched records  4\npersons billed    0 (since ${PERIOD})\n`);
  });

  it('when the account does not exist, then it exits 1 not_found rather than showing zeros', async () => {
    for (const account of [randomUUID(), 'acme']) {
      const res = await cli('usage', '--account', account);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`not_found: account ${account} does not exist`);
      expect(res.stdout).toBe('');
    }
    expect((await cli('usage')).code).toBe(2);
  });
});
