// The visitor retention in the running visitors service, on rows aged by SQL: a visitor not seen for
// VISITOR_RETENTION_DAYS goes with its sessions, identity links and page-rule firings, a cookieless
// day profile goes after VISITOR_COOKIELESS_RETENTION_DAYS, a company visit older than the retention
// goes; a recent visitor, a persistent visitor between the two cut-offs and their rows stay, and the
// deletions are counted in glimpse_visitors_retention_deleted_total.
import { randomUUID } from 'node:crypto';
import { closeTestDb, testSql, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { newVisitorId } from './collected-messages';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

afterAll(async () => {
  await closeTestDb();
});

async function visitor(accountId: string, siteId: string, lastSeenDaysAgo: number, cookieless = false): Promise<string> {
  const id = newVisitorId();
  const sql = testSql();
  const seen = ago(lastSeenDaysAgo);
  await sql.$executeRawUnsafe(
    `INSERT INTO visitors.visitor_profiles (account_id, id, site_id, first_seen, last_seen, page_views, sessions, cookieless, email)
     VALUES ($1::uuid, $2, $3::uuid, $4, $4, 1, 1, $5, $6)`,
    accountId,
    id,
    siteId,
    seen,
    cookieless,
    cookieless ? null : `${id}@example.com`,
  );
  await sql.$executeRawUnsafe(
    `INSERT INTO visitors.visitor_sessions (account_id, visitor_id, number, site_id, started_at, last_at, page_views) VALUES ($1::uuid, $2, 1, $3::uuid, $4, $4, 1)`,
    accountId,
    id,
    siteId,
    seen,
  );
  if (!cookieless) {
    await sql.$executeRawUnsafe(
      `INSERT INTO visitors.identity_links (account_id, visitor_id, site_id, email, method, at, source_id) VALUES ($1::uuid, $2, $3::uuid, $4, 'identify', $5, $6)`,
      accountId,
      id,
      siteId,
      `${id}@example.com`,
      seen,
      `src-${id}`,
    );
    await sql.$executeRawUnsafe(
      `INSERT INTO visitors.page_rule_firings (account_id, visitor_id, session_number, rule_id, at) VALUES ($1::uuid, $2, 1, $3::uuid, $4)`,
      accountId,
      id,
      randomUUID(),
      seen,
    );
  }
  return id;
}

async function rowsOf(accountId: string, id: string): Promise<Record<string, number>> {
  const [row] = await testSql().$queryRawUnsafe<Record<string, number>[]>(
    `SELECT (SELECT count(*) FROM visitors.visitor_profiles WHERE account_id = $1::uuid AND id = $2)::int AS profiles,
            (SELECT count(*) FROM visitors.visitor_sessions WHERE account_id = $1::uuid AND visitor_id = $2)::int AS sessions,
            (SELECT count(*) FROM visitors.identity_links WHERE account_id = $1::uuid AND visitor_id = $2)::int AS links,
            (SELECT count(*) FROM visitors.page_rule_firings WHERE account_id = $1::uuid AND visitor_id = $2)::int AS firings`,
    accountId,
    id,
  );
  return row!;
}

const companyVisits = async (accountId: string) =>
  (
    await testSql().$queryRawUnsafe<{ company: string }[]>(
      `SELECT company FROM visitors.company_visits WHERE account_id = $1::uuid ORDER BY company`,
      accountId,
    )
  ).map((r) => r.company);

async function metric(url: string, table: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`glimpse_visitors_retention_deleted_total{table="${table}"}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('visitor retention', () => {
  it('when visitors were last seen past the retention, then the job deletes them with their sessions, links and firings, cookieless ones after 30 days, and keeps the rest', async () => {
    const accountId = randomUUID();
    const siteId = randomUUID();
    const old = await visitor(accountId, siteId, 400);
    const recent = await visitor(accountId, siteId, 2);
    const between = await visitor(accountId, siteId, 100);
    const oldCookieless = await visitor(accountId, siteId, 31, true);
    const recentCookieless = await visitor(accountId, siteId, 10, true);
    for (const [company, days] of [
      ['old.example', 400],
      ['new.example', 3],
    ] as const) {
      await testSql().$executeRawUnsafe(
        `INSERT INTO visitors.company_visits (account_id, site_id, company, window_start, visitor_id, at) VALUES ($1::uuid, $2::uuid, $3, $4, $5, $4)`,
        accountId,
        siteId,
        company,
        ago(days),
        recent,
      );
    }

    const service = await startTestVisitorsService({ VISITOR_RETENTION_INTERVAL_MS: '300' });
    try {
      await waitFor(async () => (await rowsOf(accountId, old)).profiles === 0 && (await rowsOf(accountId, oldCookieless)).profiles === 0, {
        what: 'the old visitors to be deleted',
        timeoutMs: 20_000,
      });
      await waitFor(async () => (await companyVisits(accountId)).length === 1, { what: 'the old company visit to be deleted', timeoutMs: 20_000 });

      expect(await rowsOf(accountId, old)).toEqual({ profiles: 0, sessions: 0, links: 0, firings: 0 });
      expect(await rowsOf(accountId, oldCookieless)).toEqual({ profiles: 0, sessions: 0, links: 0, firings: 0 });
      expect(await rowsOf(accountId, recent)).toEqual({ profiles: 1, sessions: 1, links: 1, firings: 1 });
      expect(await rowsOf(accountId, between)).toEqual({ profiles: 1, sessions: 1, links: 1, firings: 1 });
      expect(await rowsOf(accountId, recentCookieless)).toEqual({ profiles: 1, sessions: 1, links: 0, firings: 0 });
      expect(await companyVisits(accountId)).toEqual(['new.example']);

      expect(await metric(service.url, 'profiles')).toBeGreaterThanOrEqual(2);
      expect(await metric(service.url, 'sessions')).toBeGreaterThanOrEqual(2);
      expect(await metric(service.url, 'links')).toBeGreaterThanOrEqual(1);
      expect(await metric(service.url, 'firings')).toBeGreaterThanOrEqual(1);
      expect(await metric(service.url, 'company_visits')).toBeGreaterThanOrEqual(1);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
