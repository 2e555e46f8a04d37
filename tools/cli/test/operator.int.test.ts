// `glimpse account workflows` through a real gateway's operator API (the
// CLI through the front door): configured by GLIMPSE_URL (or --url) and GLIMPSE_OPERATOR_TOKEN, it
// shows, grants and removes the add-on without ever opening a database, and says what is wrong
// when the configuration, the token, the gateway or the account is.
import { randomBytes } from 'node:crypto';
import type { RunningGateway } from '@glimpse/gateway';
import { run } from '../src/main';
import { closeTestDb, startTestGateway, testDb } from '../../../test/support/stack';
import { setEnv } from '../../../test/config';

const TOKEN = randomBytes(32).toString('hex');
const ENV = ['GLIMPSE_URL', 'GLIMPSE_OPERATOR_TOKEN'] as const;

let gateway: RunningGateway;
let plain: RunningGateway;
/** Puts back the environment the file started with (the first configure() made it). */
let restoreEnv: (() => void) | undefined;
beforeAll(async () => {
  [gateway, plain] = await Promise.all([startTestGateway({ OPERATOR_TOKEN: TOKEN }), startTestGateway()]);
});
afterAll(async () => {
  restoreEnv?.();
  await Promise.all([gateway?.stop(), plain?.stop()]);
  await closeTestDb();
});

function configure(env: Partial<Record<(typeof ENV)[number], string>>) {
  const restore = setEnv(Object.fromEntries(ENV.map((name) => [name, env[name]])));
  restoreEnv ??= restore;
}

/** Runs the CLI with a database factory that fails: the command must not need one. */
async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const opened: string[] = [];
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, (service) => {
    opened.push(service);
    throw new Error(`the command opened the ${service} database`);
  });
  return { code, stdout, stderr, opened };
}

/** The CLI configured for the operator gateway (account create, event-token create go through it too now). */
async function viaGateway(...argv: string[]) {
  configure({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: TOKEN });
  return cli(...argv);
}

async function newAccount(): Promise<string> {
  const created = await viaGateway('account', 'create', '--name', 'CLI operator test', '--json');
  expect(created.code).toBe(0);
  return JSON.parse(created.stdout).id;
}

describe('glimpse account workflows through the operator API', () => {
  it('documents the command, the operator API and its configuration in --help', async () => {
    configure({});
    const help = await cli('--help');
    expect(help.stdout).toMatch(/account workflows +show, grant \(--on\) or remove \(--off\) the workflows add-on/);
    expect(help.stdout).toContain('GLIMPSE_URL (or --url) and GLIMPSE_OPERATOR_TOKEN: every command goes through a gateway');
    const commandHelp = await cli('account', 'workflows', '--help');
    expect(commandHelp.code).toBe(0);
    for (const text of [
      'glimpse account workflows --account ID [--on | --off] [--url URL]',
      'addon_required',
      'GLIMPSE_OPERATOR_TOKEN',
      '/operator/accounts/ID',
    ]) {
      expect(commandHelp.stdout).toContain(text);
    }
    expect((await cli('account', 'create', '--help')).stdout).toContain('--workflows');
  });

  it('shows, removes and grants the add-on (idempotently) through the gateway, opening no database', async () => {
    const id = await newAccount();
    configure({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: TOKEN });
    const shown = await cli('account', 'workflows', '--account', id, '--json');
    expect([shown.code, shown.stderr, shown.opened]).toEqual([0, '', []]);
    expect(JSON.parse(shown.stdout)).toEqual({ id, name: 'CLI operator test', workflows: false });

    for (let i = 0; i < 2; i++) {
      const on = await cli('account', 'workflows', '--account', id, '--on');
      expect([on.code, on.stdout, on.opened]).toEqual([0, `account ${id}: workflows add-on on\n`, []]);
      expect((await testDb('identity').account.findUniqueOrThrow({ where: { id } })).workflows).toBe(true);
    }
    for (let i = 0; i < 2; i++) {
      const off = await cli('account', 'workflows', '--account', id, '--off');
      expect([off.code, off.stdout, off.opened]).toEqual([0, `account ${id}: workflows add-on off\n`, []]);
      expect((await testDb('identity').account.findUniqueOrThrow({ where: { id } })).workflows).toBe(false);
    }

    // --url instead of GLIMPSE_URL (and a trailing slash is fine).
    configure({ GLIMPSE_OPERATOR_TOKEN: TOKEN });
    const byFlag = await cli('account', 'workflows', '--account', id, '--on', '--url', `${gateway.url}/`);
    expect([byFlag.code, byFlag.stdout]).toEqual([0, `account ${id}: workflows add-on on\n`]);

    const granted = JSON.parse((await viaGateway('account', 'create', '--name', 'CLI operator test', '--workflows', '--json')).stdout);
    expect(granted.workflows).toBe(true);
  });

  it('without the gateway URL or the operator token, it exits 2 naming what to set, and changes nothing', async () => {
    const id = await newAccount();
    for (const [env, named] of [
      [{}, /set GLIMPSE_URL \(or --url\) and GLIMPSE_OPERATOR_TOKEN/],
      [{ GLIMPSE_URL: gateway.url }, /set GLIMPSE_OPERATOR_TOKEN$/m],
      [{ GLIMPSE_OPERATOR_TOKEN: TOKEN }, /set GLIMPSE_URL \(or --url\)$/m],
    ] as const) {
      configure(env);
      const res = await cli('account', 'workflows', '--account', id, '--on');
      expect([res.code, res.opened]).toEqual([2, []]);
      expect(res.stderr).toMatch(named);
      expect(res.stderr).not.toContain(TOKEN);
    }
    expect((await testDb('identity').account.findUniqueOrThrow({ where: { id } })).workflows).toBe(false);
    configure({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: TOKEN });
    expect((await cli('account', 'workflows', '--account', id, '--on', '--off')).code).toBe(2);
  });

  it("relays the gateway's refusals: an unknown account, a bad id, a wrong token, a gateway without the operator API, none at all", async () => {
    const id = await newAccount();
    configure({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: TOKEN });
    const missing = await cli('account', 'workflows', '--account', '00000000-0000-4000-8000-000000000000', '--on');
    expect([missing.code, missing.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: not_found: account 00000000-0000-4000-8000-000000000000 does not exist\n$/),
    ]);
    const bad = await cli('account', 'workflows', '--account', 'not-an-id');
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('error: invalid_request: the account id must be a UUID')]);

    configure({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: randomBytes(32).toString('hex') });
    const wrong = await cli('account', 'workflows', '--account', id, '--on');
    expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('error: unauthorized: invalid operator token')]);

    configure({ GLIMPSE_URL: plain.url, GLIMPSE_OPERATOR_TOKEN: TOKEN });
    const noApi = await cli('account', 'workflows', '--account', id, '--on');
    expect([noApi.code, noApi.stderr]).toEqual([1, expect.stringContaining('that gateway has no operator API: is its OPERATOR_TOKEN set?')]);

    configure({ GLIMPSE_URL: 'http://127.0.0.1:1', GLIMPSE_OPERATOR_TOKEN: TOKEN });
    const down = await cli('account', 'workflows', '--account', id, '--on');
    expect([down.code, down.stderr]).toEqual([1, expect.stringContaining('error: the operator API at http://127.0.0.1:1 did not answer')]);
    expect(down.stderr).not.toContain(TOKEN);

    // None of it changed the account.
    expect((await testDb('identity').account.findUniqueOrThrow({ where: { id } })).workflows).toBe(false);
  });
});

describe('glimpse event-token create', () => {
  it('refuses an account without the workflows add-on (addon_required), as the API does', async () => {
    const id = await newAccount();
    const refused = await viaGateway('event-token', 'create', '--account', id);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('error: addon_required:')]);
    expect(await testDb('identity').eventToken.count({ where: { accountId: id } })).toBe(0);
    configure({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: TOKEN });
    expect((await cli('account', 'workflows', '--account', id, '--on')).code).toBe(0);
    expect((await viaGateway('event-token', 'create', '--account', id)).code).toBe(0);
    expect(await testDb('identity').eventToken.count({ where: { accountId: id } })).toBe(1);
  });
});
