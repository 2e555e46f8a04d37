// The operator CLI through a real gateway's operator API (no back door), with the
// real playbook service behind it, through its entry point run(argv, io). It opens no database.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { TOPICS } from '@glimpse/messaging';
import { testDb } from '../../../test/support/stack';
import { endOffsets, readTopic } from '../../../test/support/kafka-helpers';
import { cli, newAccount as newCliAccount, useCliStack } from './operator-stack';

// Every command here goes through the operator API: useCliStack checks that none opened a database.
useCliStack();

/** An account with the workflows add-on (its event tokens belong to it). */
const newAccount = () => newCliAccount('CLI test', { workflows: true });

describe('glimpse CLI', () => {
  it('when asked for --help, then it lists every command; a command with --help shows its usage', async () => {
    const overview = await cli('--help');
    expect(overview.code).toBe(0);
    for (const words of [
      'account create',
      'account delete',
      'event-token create',
      'event-token revoke',
      'playbook create',
      'playbook list',
      'playbook enrollments',
      'events catalog',
    ]) {
      expect(overview.stdout).toContain(words);
    }
    const usage = await cli('playbook', 'create', '--help');
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain('Usage: glimpse playbook create --account ID --name NAME');
  });

  it('when a command is unknown or an option is missing, then it exits 2 with the usage on stderr', async () => {
    expect((await cli('nope')).code).toBe(2);
    const missing = await cli('account', 'create');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');
    const unknownOption = await cli('account', 'create', '--name', 'x', '--bogus');
    expect(unknownOption.code).toBe(2);
  });

  it('when an account and an event token are created with --json, then stdout is one JSON value with the ids and the token', async () => {
    const accountId = await newAccount();
    const token = await cli('event-token', 'create', '--account', accountId, '--json');
    expect(token.code).toBe(0);
    const body = token.json();
    expect(body).toEqual({ id: expect.any(String), token: expect.stringMatching(/^gle_/) });
    const stored = await testDb('identity').eventToken.findUniqueOrThrow({ where: { id: body.id } });
    expect(stored.hash).not.toContain(body.token);
    expect(stored.revokedAt).toBeNull();

    const revoked = await cli('event-token', 'revoke', '--account', accountId, '--id', body.id, '--json');
    expect(revoked.code).toBe(0);
    expect((await testDb('identity').eventToken.findUniqueOrThrow({ where: { id: body.id } })).revokedAt).not.toBeNull();
  });

  it('when a token of another account is revoked, then it is not found and stays valid', async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const { id } = (await cli('event-token', 'create', '--account', owner, '--json')).json();
    const attempt = await cli('event-token', 'revoke', '--account', other, '--id', id);
    expect(attempt.code).toBe(1);
    expect(attempt.stderr).toContain('not_found');
    expect((await testDb('identity').eventToken.findUniqueOrThrow({ where: { id } })).revokedAt).toBeNull();
  });

  it('when a playbook names a trigger never sent (rule 3), then it is refused; an exit may name any valid event', async () => {
    const accountId = await newAccount();
    const refused = await cli('playbook', 'create', '--account', accountId, '--name', 'Nurture', '--trigger', 'never_sent', '--json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('unknown_event_name');
    expect(refused.stderr).toContain('never_sent');

    const created = await cli('playbook', 'create', '--account', accountId, '--name', 'Nurture', '--exit', 'purchase', '--exit', 'demo_booked', '--json');
    expect(created.code).toBe(0);
    const list = await cli('playbook', 'list', '--account', accountId, '--json');
    expect(list.json()).toEqual([expect.objectContaining({ id: created.json().id, name: 'Nurture', triggers: [], exits: ['demo_booked', 'purchase'] })]);
  });

  it('when the catalog and enrollments are listed, then they show the names sent and each enrollment with its status', async () => {
    const accountId = await newAccount();
    const now = new Date();
    await testDb('playbook').eventName.create({ data: { accountId, name: 'signed_up', firstSeenAt: now, lastSeenAt: now, count: 2n } });
    const { id: playbookId } = (await cli('playbook', 'create', '--account', accountId, '--name', 'Onboarding', '--trigger', 'signed_up', '--json')).json();
    await testDb('playbook').enrollment.create({
      data: {
        playbookId,
        accountId,
        email: 'ann@example.com',
        status: 'active',
        startedAt: now,
        startedBy: 'signed_up',
        startEventId: '00000000-0000-4000-8000-000000000001',
      },
    });

    const catalog = await cli('events', 'catalog', '--account', accountId, '--json');
    // As GET /account/events/catalog answers it: with the playbooks each name triggers and exits.
    expect(catalog.json()).toEqual([
      {
        name: 'signed_up',
        firstSeenAt: now.toISOString(),
        lastSeenAt: now.toISOString(),
        count: 2,
        triggers: [{ id: playbookId, name: 'Onboarding' }],
        exits: [],
      },
    ]);
    const enrollments = await cli('playbook', 'enrollments', '--account', accountId, '--playbook', playbookId, '--json');
    expect(enrollments.json()).toEqual([
      {
        id: expect.any(String),
        email: 'ann@example.com',
        status: 'active',
        startedAt: now.toISOString(),
        startedBy: 'signed_up',
        stoppedAt: null,
        stoppedBy: null,
      },
    ]);
    const human = await cli('playbook', 'enrollments', '--account', accountId, '--playbook', playbookId);
    expect(human.stdout).toMatch(/email\s+status/);
    expect(human.stdout).toContain('ann@example.com  active');
  });

  it('when a playbook is created and updated with a re-enrollment policy, then it is kept; a bad policy exits 1 and changes nothing', async () => {
    const accountId = await newAccount();
    const created = await cli('playbook', 'create', '--account', accountId, '--name', 'Once', '--exit', 'purchase', '--reenrollment', 'once', '--json');
    expect(created.json()).toEqual({ id: expect.any(String), reenrollment: 'once' });
    const updated = await cli('playbook', 'update', '--account', accountId, '--playbook', created.json().id, '--reenrollment', 'restart', '--json');
    expect(updated.json()).toMatchObject({ id: created.json().id, name: 'Once', reenrollment: 'restart' });
    const bad = await cli('playbook', 'update', '--account', accountId, '--playbook', created.json().id, '--reenrollment', 'twice');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('reenrollment must be one of once, when_inactive, restart');
    expect((await cli('playbook', 'list', '--account', accountId, '--json')).json()[0].reenrollment).toBe('restart');
  });

  it('when an event is dry-run for a person, then it shows per playbook what would happen, and nothing is written', async () => {
    const accountId = await newAccount();
    const now = new Date();
    await testDb('playbook').eventName.create({ data: { accountId, name: 'signed_up', firstSeenAt: now, lastSeenAt: now, count: 1n } });
    const { id: playbookId } = (await cli('playbook', 'create', '--account', accountId, '--name', 'Onboarding', '--trigger', 'signed_up', '--json')).json();
    const run = await cli('events', 'dry-run', '--account', accountId, '--event', 'signed_up', '--email', ' Ann@Example.com', '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      event: 'signed_up',
      email: 'ann@example.com',
      catalog: 'known',
      playbooks: [{ id: playbookId, name: 'Onboarding', outcome: 'start', reason: 'trigger' }],
    });
    const human = await cli('events', 'dry-run', '--account', accountId, '--event', 'signed_up', '--email', 'ann@example.com');
    expect(human.stdout).toMatch(/Onboarding\s+start\s+trigger/);
    expect(await testDb('playbook').enrollment.count({ where: { accountId } })).toBe(0);
    expect(await testDb('playbook').processedEvent.count({ where: { accountId } })).toBe(0);
    expect((await cli('events', 'dry-run', '--account', accountId, '--event', 'signed_up', '--email', 'nope')).stderr).toContain(
      'email must be a valid email address',
    );
  });

  it('when a person is suppressed, listed and lifted from the CLI, then their active enrollment stops and the list follows', async () => {
    const accountId = await newAccount();
    const now = new Date();
    await testDb('playbook').eventName.create({ data: { accountId, name: 'signed_up', firstSeenAt: now, lastSeenAt: now, count: 1n } });
    const { id: playbookId } = (await cli('playbook', 'create', '--account', accountId, '--name', 'Onboarding', '--trigger', 'signed_up', '--json')).json();
    await testDb('playbook').enrollment.create({
      data: {
        playbookId,
        accountId,
        email: 'bo@example.com',
        status: 'active',
        startedAt: now,
        startedBy: 'signed_up',
        startEventId: '00000000-0000-4000-8000-000000000002',
      },
    });
    const added = await cli('suppression', 'add', '--account', accountId, '--email', 'Bo@Example.com', '--json');
    expect(added.json()).toMatchObject({ email: 'bo@example.com', stoppedEnrollments: 1 });
    expect((await testDb('playbook').enrollment.findFirstOrThrow({ where: { accountId } })).stoppedBy).toBe('suppressed');
    expect((await cli('suppression', 'list', '--account', accountId, '--json')).json()).toEqual([expect.objectContaining({ email: 'bo@example.com' })]);
    expect((await cli('suppression', 'remove', '--account', accountId, '--email', 'bo@example.com', '--json')).code).toBe(0);
    expect((await cli('suppression', 'list', '--account', accountId, '--json')).json()).toEqual([]);
    expect((await cli('suppression', 'remove', '--account', accountId, '--email', 'bo@example.com')).stderr).toContain('not_found');
  });

  it('when an applied event has a receipt, then events receipt shows it; an unknown id exits 1 not_found', async () => {
    const accountId = await newAccount();
    const eventId = randomUUID();
    const playbook = await testDb('playbook').playbook.create({ data: { accountId, name: 'Onboarding' } });
    await testDb('playbook').eventReceipt.create({
      data: { eventId, accountId, eventName: 'signed_up', changed: [{ playbookId: playbook.id, action: 'started' }], unchanged: [], at: new Date() },
    });
    const shown = await cli('events', 'receipt', '--account', accountId, '--event-id', eventId, '--json');
    expect(shown.json()).toMatchObject({ eventId, event: 'signed_up', started: [{ id: playbook.id, name: 'Onboarding' }], stopped: [], unchanged: [] });
    expect((await cli('events', 'receipt', '--account', accountId, '--event-id', eventId)).stdout).toMatch(/Onboarding\s+started/);
    const unknown = await cli('events', 'receipt', '--account', accountId, '--event-id', randomUUID());
    expect([unknown.code, unknown.stderr.includes('not_found')]).toEqual([1, true]);
  });

  it('when the built bin runs with --help, then it prints the overview and exits 0', async () => {
    const bin = path.join(__dirname, '..', 'bin', 'glimpse.js');
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: glimpse <command>');
  });
});

describe('glimpse account delete', () => {
  it('when asked for --help, then it shows its usage; the overview lists it', async () => {
    const usage = await cli('account', 'delete', '--help');
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain('Usage: glimpse account delete --account ID [--url URL] [--json]');
    expect((await cli('--help')).stdout).toContain('account delete');
  });

  it('when an account is deleted, then it is gone with its tokens, account.deleted is published on the accounts topic, and --json says so', async () => {
    const accountId = await newAccount();
    const token = (await cli('event-token', 'create', '--account', accountId, '--json')).json();
    const from = await endOffsets(TOPICS.accounts);
    const deleted = await cli('account', 'delete', '--account', accountId, '--json');
    expect(deleted.code).toBe(0);
    expect(deleted.json()).toEqual({ id: accountId, deleted: true, deletedAt: expect.any(String), event: 'published' });
    expect(await testDb('identity').account.findUnique({ where: { id: accountId } })).toBeNull();
    expect(await testDb('identity').eventToken.findUnique({ where: { id: token.id } })).toBeNull();
    const rows = await testDb('identity').accountEvent.findMany({ where: { accountId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => [r.type, r.publishedAt !== null])).toEqual([
      ['account.created', true],
      ['account.deleted', true],
    ]);
    const messages = await readTopic(TOPICS.accounts, { from, until: (read) => read.some((m) => m.key === accountId && m.json?.type === 'account.deleted') });
    expect(messages.filter((m) => m.key === accountId).at(-1)!.json).toEqual({ type: 'account.deleted', accountId, at: deleted.json().deletedAt });
  });

  it('when the account does not exist, then it exits 1 not_found; without --account, 2', async () => {
    const unknown = await cli('account', 'delete', '--account', randomUUID());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not_found');
    expect((await cli('account', 'delete', '--account', 'not-an-id')).code).toBe(1);
    const missing = await cli('account', 'delete');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--account is required');
  });

  it('when the gateway does not answer, then create and delete exit 1 saying so, and nothing is written', async () => {
    const before = await testDb('identity').account.count({ where: { name: 'No gateway' } });
    const created = await cli('account', 'create', '--name', 'No gateway', '--url', 'http://127.0.0.1:1');
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('the operator API at http://127.0.0.1:1 did not answer');
    expect(await testDb('identity').account.count({ where: { name: 'No gateway' } })).toBe(before);
    const accountId = await newAccount();
    const deleted = await cli('account', 'delete', '--account', accountId, '--url', 'http://127.0.0.1:1');
    expect(deleted.code).toBe(1);
    expect(await testDb('identity').account.findUnique({ where: { id: accountId } })).not.toBeNull();
  });
});
