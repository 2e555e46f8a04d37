// The caps per account are the services' configured ones, not the CLI's (the CLI's
// playbook cap was the default while the HTTP path's was the configured one). The CLI goes through
// the gateway's operator API, so it is refused exactly where POST /account/… is, whatever its own
// environment says; and it lists every suppressed person with --all.
import { testDb } from '../../../test/support/stack';
import { setEnv } from '../../../test/config';
import { cli, newAccount as newCliAccount, opened, useCliStack } from './operator-stack';

const stack = useCliStack({
  gateway: { EVENT_TOKENS_PER_ACCOUNT: '2', API_KEYS_PER_ACCOUNT: '1' },
  playbook: { PLAYBOOKS_PER_ACCOUNT: '1', SUPPRESSIONS_PER_ACCOUNT: '2' },
});
let restoreEnv: (() => void) | undefined;
beforeAll(() => {
  // What the old CLI read as its own playbook cap: now it must make no difference.
  restoreEnv = setEnv({ PLAYBOOKS_PER_ACCOUNT: '5' });
});
afterAll(() => restoreEnv?.());

const newAccount = (name: string) => newCliAccount(name, { workflows: true });

describe('glimpse CLI: caps per account', () => {
  it("when the CLI creates past a service's CONFIGURED cap, then it fails with limit_reached as the HTTP path does, and creates nothing", async () => {
    const accountId = await newAccount('CLI caps');
    for (let i = 0; i < 2; i++) expect((await cli('event-token', 'create', '--account', accountId, '--json')).code).toBe(0);
    const token = await cli('event-token', 'create', '--account', accountId);
    expect([token.code, token.stderr]).toEqual([1, expect.stringContaining('at most 2 active event tokens')]);
    expect(token.stderr).toContain('limit_reached');

    expect((await cli('api-key', 'create', '--account', accountId, '--scopes', 'visitors:read', '--json')).code).toBe(0);
    expect((await cli('api-key', 'create', '--account', accountId, '--scopes', 'visitors:read')).stderr).toContain('at most 1 active API keys');

    // The playbook service has PLAYBOOKS_PER_ACCOUNT=1 (its default is 200; the CLI's environment says 5).
    expect((await cli('playbook', 'create', '--account', accountId, '--name', 'One', '--json')).code).toBe(0);
    const second = await cli('playbook', 'create', '--account', accountId, '--name', 'Two');
    expect([second.code, second.stderr]).toEqual([1, expect.stringContaining('limit_reached')]);
    expect(second.stderr).toContain('1 playbooks');
    // The HTTP path answers the same for the same account.
    const http = await fetch(`${stack.current.gateway.url}/operator/accounts/${accountId}/account/playbooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.current.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Two' }),
    });
    expect([http.status, ((await http.json()) as { error: string }).error]).toEqual([409, 'limit_reached']);
    expect(await testDb('playbook').playbook.count({ where: { accountId } })).toBe(1);

    for (const email of ['a@example.com', 'b@example.com'])
      expect((await cli('suppression', 'add', '--account', accountId, '--email', email, '--json')).code).toBe(0);
    expect((await cli('suppression', 'add', '--account', accountId, '--email', 'c@example.com')).stderr).toContain('2 suppressed people');
    expect(await testDb('identity').eventToken.count({ where: { accountId } })).toBe(2);
    expect(await testDb('playbook').suppression.count({ where: { accountId } })).toBe(2);
    expect(opened).toEqual([]);
  });

  it('when an account has more than 200 suppressed people, then the list shows the first 200 with a note, and --all every one', async () => {
    const accountId = await newAccount('CLI suppressions');
    const at = Date.now();
    await testDb('playbook').suppression.createMany({
      data: Array.from({ length: 205 }, (_, i) => ({ accountId, email: `p${i}@example.com`, createdAt: new Date(at - i * 1000) })),
    });
    const first = await cli('suppression', 'list', '--account', accountId, '--json');
    expect(first.json()).toHaveLength(200);
    expect(first.stderr).toContain('--all lists every one');
    const all = await cli('suppression', 'list', '--account', accountId, '--all', '--json');
    expect(all.json().map((s: { email: string }) => s.email)).toEqual(Array.from({ length: 205 }, (_, i) => `p${i}@example.com`));
    expect(all.stderr).toBe('');
  });
});
