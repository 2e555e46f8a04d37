// glimpse sites create / list / delete through a real gateway's operator API (the visitors service
// behind it), through the CLI's entry point run(argv, io): the same rules as /account/sites.
import { testDb } from '../../../test/support/stack';
import { cli, newAccount as newCliAccount, useCliStack } from './operator-stack';

useCliStack();

const newAccount = () => newCliAccount('CLI sites test');

describe('glimpse sites', () => {
  it('when asked for --help, then the overview lists the sites commands and each shows its usage', async () => {
    const overview = await cli('--help');
    for (const words of ['sites create', 'sites list', 'sites delete']) expect(overview.stdout).toContain(words);
    const usage = await cli('sites', 'create', '--help');
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain(
      'Usage: glimpse sites create --account ID --name NAME --origin URL [--origin URL…] [--track-event NAME…] [--capture-forms] [--consent implied|required] [--no-honor-gpc] [--identity-verification off|optional|required] [--url URL] [--json]',
    );
  });

  it('when a site is created with --json, then stdout is {id, key} and the site is stored with normalised origins', async () => {
    const accountId = await newAccount();
    const created = await cli(
      'sites',
      'create',
      '--account',
      accountId,
      '--name',
      'Shop',
      '--origin',
      'HTTPS://Shop.Test',
      '--origin',
      'http://localhost:3000/',
      '--track-event',
      'signup',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(created.json()).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^glp_[A-Za-z0-9_-]{32}$/),
      identitySecret: expect.stringMatching(/^gis_[A-Za-z0-9_-]{43}$/),
    });
    const stored = await testDb('identity').site.findUniqueOrThrow({ where: { id: created.json().id } });
    // The secret is printed once, at creation: the list never shows it.
    expect(stored.identitySecret).toBe(created.json().identitySecret);
    expect(stored).toMatchObject({ accountId, name: 'Shop', origins: ['https://shop.test', 'http://localhost:3000'], trackEvents: ['signup'] });

    const listed = await cli('sites', 'list', '--account', accountId, '--json');
    expect(listed.json().items).toEqual([
      expect.objectContaining({ id: created.json().id, key: created.json().key, origins: ['https://shop.test', 'http://localhost:3000'] }),
    ]);
    expect((await cli('sites', 'list', '--account', accountId)).stdout).toContain(created.json().key);
    expect(JSON.stringify(listed.json())).not.toContain(created.json().identitySecret);
  });

  it('when a site is created with --capture-forms --consent required --no-honor-gpc, then it is stored with those settings; without them the defaults', async () => {
    const accountId = await newAccount();
    const created = await cli(
      'sites',
      'create',
      '--account',
      accountId,
      '--name',
      'Strict',
      '--origin',
      'https://strict.test',
      '--capture-forms',
      '--consent',
      'required',
      '--no-honor-gpc',
      '--identity-verification',
      'required',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(await testDb('identity').site.findUniqueOrThrow({ where: { id: created.json().id } })).toMatchObject({
      captureForms: true,
      consent: 'required',
      honorGpc: false,
      identityVerification: 'required',
    });
    const plain = await cli('sites', 'create', '--account', accountId, '--name', 'Plain', '--origin', 'https://plain.test', '--json');
    expect(await testDb('identity').site.findUniqueOrThrow({ where: { id: plain.json().id } })).toMatchObject({
      captureForms: false,
      consent: 'implied',
      honorGpc: true,
      identityVerification: 'off',
    });
    const bad = await cli('sites', 'create', '--account', accountId, '--name', 'Bad', '--origin', 'https://bad.test', '--consent', 'maybe');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('consent must be "implied" or "required"');
  });

  it('when an origin is not an origin or none is given, then it fails with the rule and creates nothing', async () => {
    const accountId = await newAccount();
    const bad = await cli('sites', 'create', '--account', accountId, '--name', 'x', '--origin', 'https://a.test/path');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid_request');
    const none = await cli('sites', 'create', '--account', accountId, '--name', 'x');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('at least one origin');
    expect(await testDb('identity').site.count({ where: { accountId } })).toBe(0);
    expect((await cli('sites', 'create', '--name', 'x', '--origin', 'https://a.test')).code).toBe(2);
  });

  it("when a site is deleted, then it is gone; another account's site is not found and stays", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const { id } = (await cli('sites', 'create', '--account', owner, '--name', 'Gone', '--origin', 'https://gone.test', '--json')).json();
    const foreign = await cli('sites', 'delete', '--account', other, '--site', id);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('not_found');
    const deleted = await cli('sites', 'delete', '--account', owner, '--site', id, '--json');
    expect(deleted.code).toBe(0);
    expect(deleted.json()).toEqual({ id, deleted: true });
    expect(await testDb('identity').site.count({ where: { id } })).toBe(0);
  });
});
