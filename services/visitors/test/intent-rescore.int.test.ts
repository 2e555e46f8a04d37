// The re-scorer on the real Postgres: chunks applied through the collected store score their
// visitors; a change of the account's weights (its settings, a page rule's weight) marks it due, and
// re-scoring recomputes every profile's raw and rank from its stored contributions, in batches, as
// the scoring itself would with the new weights; a replica holding the account's re-scoring makes
// another skip it.
import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '@glimpse/db/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { applyCollected } from '../src/domain/apply-collected';
import { collectedStore } from '../src/data/collected-store';
import { createPageRule, reweighPageRule } from '../src/data/page-rule-repository';
import { intentWeights, readIntentSettings, rescoreAccount, rescoreDue, writeIntentSettings } from '../src/data/intent-repository';
import { DEFAULT_INTENT_SETTINGS, intentStateOf, type IntentContribution } from '../src/domain/intent-score';
import { message, newSite, newVisitorId } from './collected-messages';

let db: Db;

beforeAll(() => {
  db = createDb({ databaseUrl: serviceDatabaseUrl('visitors'), poolSize: 4 });
});

afterAll(async () => {
  await db.$disconnect();
});

type Row = { id: string; intent_raw: number; intent_rank: number | null; intent_at: Date; contributions: string };
const profiles = (accountId: string) =>
  db.$queryRawUnsafe<Row[]>(
    `SELECT id, intent_raw, intent_rank, intent_at, intent_contributions::text AS contributions FROM visitor_profiles WHERE account_id = $1::uuid ORDER BY id`,
    accountId,
  );

/** The weighted sum, decayed by the minutes since the messages (at most 1 % with a half-life of 2 days). */
function expectNear(raw: number, undecayed: number): void {
  expect(raw).toBeLessThanOrEqual(undecayed);
  expect(raw).toBeGreaterThan(undecayed * 0.99);
}

/** Every profile's raw and rank are what its contributions give with the account's weights now. */
async function expectScoredWithCurrentWeights(accountId: string): Promise<void> {
  const w = await intentWeights(db, accountId);
  for (const p of await profiles(accountId)) {
    const expected = intentStateOf(JSON.parse(p.contributions) as IntentContribution[], new Date(p.intent_at).toISOString(), w);
    expect({ id: p.id, raw: p.intent_raw, rank: p.intent_rank }).toEqual({ id: p.id, raw: expected.raw, rank: expected.rank });
  }
}

it('when the weights change, then re-scoring gives every profile the sum with the new weights, one replica at a time', async () => {
  const site = newSite(randomUUID());
  const rule = await createPageRule(db, site.accountId, { pattern: '/pricing*', event: null, weight: 20 });
  const store = collectedStore(db, { erasureSecret: 'x'.repeat(32) });
  const visitors = [newVisitorId(), newVisitorId(), newVisitorId()];
  const at = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  await applyCollected(
    store,
    visitors.flatMap((v, i) => [
      message(site, v, 'pageview', { path: '/pricing' }, at(30 + i)),
      message(site, v, 'pageview', { path: '/docs' }, at(20 + i)),
      message(site, v, 'engagement', { pageViewId: 'pageview01', seconds: 90 }, at(19 + i)),
    ]),
  );
  // Scored as applied: 2 page views, a session, 1.5 minutes, the rule once.
  for (const p of await profiles(site.accountId)) expectNear(p.intent_raw, 2 + 3 + 1.5 + 20);
  await expectScoredWithCurrentWeights(site.accountId);
  // Creating a weighted rule marked the account; its first re-scoring changes nothing.
  expect((await readIntentSettings(db, site.accountId)).rescoredAt).toBeNull();
  expect(await rescoreAccount(db, site.accountId, 2)).toBe(3);

  const changed = await writeIntentSettings(db, site.accountId, { ...DEFAULT_INTENT_SETTINGS, pageViewWeight: 5, halfLifeDays: 2 });
  expect(Date.parse(changed.updatedAt!)).toBeGreaterThan(Date.parse(changed.rescoredAt!));
  // Another replica holds the account's re-scoring: this one skips it.
  await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended('intent_rescore:' || $1::text, 0))`, site.accountId);
    expect(await rescoreAccount(db, site.accountId, 2)).toBeNull();
  });
  expect((await readIntentSettings(db, site.accountId)).rescoredAt).toBe(changed.rescoredAt);

  // In batches of 2: all three recomputed, and the account is no longer due.
  expect(await rescoreAccount(db, site.accountId, 2)).toBe(3);
  await expectScoredWithCurrentWeights(site.accountId);
  for (const p of await profiles(site.accountId)) expectNear(p.intent_raw, 2 * 5 + 3 + 1.5 + 20);
  const settings = await readIntentSettings(db, site.accountId);
  expect(settings.rescoredAt).toBe(settings.updatedAt);

  // A page rule's new weight marks the account again; the round of due accounts re-scores it.
  await reweighPageRule(db, site.accountId, rule!.id, 60);
  const due = await db.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM intent_settings WHERE account_id = $1::uuid AND updated_at > rescored_at`,
    site.accountId,
  );
  expect(due[0]!.n).toBe(1);
  await rescoreDue(db, 1_000);
  await expectScoredWithCurrentWeights(site.accountId);
  for (const p of await profiles(site.accountId)) expectNear(p.intent_raw, 2 * 5 + 3 + 1.5 + 60);
});
