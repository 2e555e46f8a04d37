// The operator CLI holds what it creates to the caps per account, read under the services' names
// (EVENT_TOKENS_PER_ACCOUNT, …), and lists every suppressed person with --all.
import { createAccount } from '@glimpse/auth';
import { createDb, type Db } from '@glimpse/db';
import { run } from '../src/main';
import type { CliService } from '../src/config';
import { closeTestDb, testDb } from '../../../test/support/stack';
import { serviceDatabaseUrl } from '../../../test/config';

const roleDbs = new Map<CliService, Db>();
function roleDb(service: CliService): Db {
  let db = roleDbs.get(service);
  if (!db) roleDbs.set(service, (db = createDb({ databaseUrl: serviceDatabaseUrl(service), poolSize: 2 })));
  return db;
}

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, roleDb);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

const CAPS = { EVENT_TOKENS_PER_ACCOUNT: '2', API_KEYS_PER_ACCOUNT: '1', PLAYBOOKS_PER_ACCOUNT: '1', SUPPRESSIONS_PER_ACCOUNT: '2' };
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [name, value] of Object.entries(CAPS)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(async () => {
  for (const name of Object.keys(CAPS)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await Promise.all([...roleDbs.values()].map((db) => db.$disconnect()));
  await closeTestDb();
});

describe('glimpse CLI: caps per account', () => {
  it('when the CLI creates past a cap, then it fails with limit_reached naming the cap and creates nothing', async () => {
    const { id: accountId } = await createAccount(testDb(), 'CLI caps');
    for (let i = 0; i < 2; i++) expect((await cli('event-token', 'create', '--account', accountId, '--json')).code).toBe(0);
    const token = await cli('event-token', 'create', '--account', accountId);
    expect([token.code, token.stderr]).toEqual([1, expect.stringContaining('at most 2 active event tokens')]);
    expect(token.stderr).toContain('limit_reached');

    expect((await cli('api-key', 'create', '--account', accountId, '--scopes', 'visitors:read', '--json')).code).toBe(0);
    expect((await cli('api-key', 'create', '--account', accountId, '--scopes', 'visitors:read')).stderr).toContain('at most 1 active API keys');

    expect((await cli('playbook', 'create', '--account', accountId, '--name', 'One', '--json')).code).toBe(0);
    expect((await cli('playbook', 'create', '--account', accountId, '--name', 'Two')).stderr).toContain('1 playbooks');

    for (const email of ['a@example.com', 'b@example.com']) expect((await cli('suppression', 'add', '--account', accountId, '--email', email, '--json')).code).toBe(0);
    expect((await cli('suppression', 'add', '--account', accountId, '--email', 'c@example.com')).stderr).toContain('2 suppressed people');
    expect(await testDb().eventToken.count({ where: { accountId } })).toBe(2);
    expect(await testDb().suppression.count({ where: { accountId } })).toBe(2);
  });

  it('when an account has more than 200 suppressed people, then the list shows the first 200 with a note, and --all every one', async () => {
    const { id: accountId } = await createAccount(testDb(), 'CLI suppressions');
    const at = Date.now();
    await testDb().suppression.createMany({ data: Array.from({ length: 205 }, (_, i) => ({ accountId, email: `p${i}@example.com`, createdAt: new Date(at - i * 1000) })) });
    const first = await cli('suppression', 'list', '--account', accountId, '--json');
    expect(first.json()).toHaveLength(200);
    expect(first.stderr).toContain('--all lists every one');
    const all = await cli('suppression', 'list', '--account', accountId, '--all', '--json');
    expect(all.json().map((s: { email: string }) => s.email)).toEqual(Array.from({ length: 205 }, (_, i) => `p${i}@example.com`));
    expect(all.stderr).toBe('');
  });
});
