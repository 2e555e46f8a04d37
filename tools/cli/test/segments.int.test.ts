// glimpse segments list / create / show / members / delete through a real gateway's operator API (the
// visitors service behind it, profiles seeded with their scores), through the CLI's entry point.
import { randomUUID } from 'node:crypto';
import { seedVisitor } from '../../../services/visitors/test/segment-seed';
import { cli, newAccount as newCliAccount, useCliStack } from './operator-stack';

useCliStack();

const newAccount = () => newCliAccount('CLI segments test');

describe('glimpse segments', () => {
  it('when asked for --help, then the overview lists the segments commands and each shows its usage', async () => {
    const overview = await cli('--help');
    for (const words of ['segments list', 'segments create', 'segments show', 'segments members', 'segments delete']) expect(overview.stdout).toContain(words);
    const usage = await cli('segments', 'create', '--help');
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain('Usage: glimpse segments create --account ID --name NAME --kind visitors|companies [--min-score N]');
  });

  it('when a segment is created, shown, listed, paged and deleted, then each answers from the account’s scored visitors', async () => {
    const accountId = await newAccount();
    const site = randomUUID();
    const now = new Date();
    const hot = await seedVisitor(accountId, site, {
      score: 80,
      at: now,
      pages: [{ path: '/pricing', at: now }],
      email: `cli-${accountId.slice(0, 8)}@example.com`,
    });
    await seedVisitor(accountId, site, { score: 50, at: now, pages: [{ path: '/pricing/team', at: now }] });
    await seedVisitor(accountId, site, { score: 90, at: now, pages: [{ path: '/blog', at: now }] });

    const created = await cli(
      'segments',
      'create',
      '--account',
      accountId,
      '--name',
      'Pricing',
      '--kind',
      'visitors',
      '--min-score',
      '40',
      '--page',
      '/pricing*',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ name: 'Pricing', kind: 'visitors', count: 2, alertWindowHours: 24 });
    const id = created.json().id as string;
    expect(JSON.parse(created.json().filter)).toEqual({ min_score: 40, pages: { pattern: '/pricing*', within_days: 7 } });

    const human = await cli('segments', 'show', '--account', accountId, '--segment', id);
    expect(human.stdout).toContain('count: 2');
    expect((await cli('segments', 'list', '--account', accountId, '--json')).json().items.map((s: { id: string }) => s.id)).toEqual([id]);

    const page = await cli('segments', 'members', '--account', accountId, '--segment', id, '--limit', '1', '--json');
    expect(page.json().items).toEqual([
      { key: hot, name: null, email: `cli-${accountId.slice(0, 8)}@example.com`, score: 80, reasons: '80 page views (80)', visitors: 1 },
    ]);
    const next = await cli('segments', 'members', '--account', accountId, '--segment', id, '--cursor', page.json().nextCursor, '--json');
    expect(next.json().items.map((m: { score: number; email: string | null }) => [m.score, m.email])).toEqual([[50, null]]);

    const bad = await cli('segments', 'create', '--account', accountId, '--name', 'Bad', '--kind', 'visitors', '--page', 'pricing');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('pattern');
    expect((await cli('segments', 'create', '--account', accountId, '--name', 'Both', '--kind', 'visitors', '--identified', '--anonymous')).code).not.toBe(0);

    expect((await cli('segments', 'delete', '--account', accountId, '--segment', id, '--json')).json()).toEqual({ id, deleted: true });
    expect((await cli('segments', 'show', '--account', accountId, '--segment', id)).code).not.toBe(0);
  });
});
