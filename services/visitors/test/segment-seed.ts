// Visitor profiles with an intent score written straight into Postgres (raw, time and rank as the
// visitors service keeps them, and one page-view contribution of the same points), so the segment
// tests do not depend on the scoring pipeline.
import { randomUUID } from 'node:crypto';
import { testSql } from '../../../test/support/stack';
import { DEFAULT_HALF_LIFE_DAYS, intentRank } from '../src/domain/intent-decay';
import { newVisitorId } from './collected-messages';

export interface SeededVisitor {
  score: number;
  at: Date;
  pages?: { path: string; at: Date }[];
  email?: string | null;
  country?: string;
  company?: { name: string; domain: string } | null;
  networkType?: string;
}

/** A profile scoring `score` (before decay) as of `at`, with the given pages (newest first), email, location and company. */
export async function seedVisitor(accountId: string, siteId: string, v: SeededVisitor, id = newVisitorId()): Promise<string> {
  const pages = (v.pages ?? []).map((p) => ({ path: p.path, title: `Title of ${p.path}`, at: p.at.toISOString() }));
  const contributions = v.score > 0 ? [{ key: 'page_view', reason: `${v.score} page views`, units: v.score, at: v.at.toISOString() }] : [];
  await testSql().$executeRawUnsafe(
    `INSERT INTO visitors.visitor_profiles (account_id, id, site_id, first_seen, last_seen, page_views, sessions, last_pages, email, location, network,
       company, company_key, intent_raw, intent_at, intent_rank, intent_contributions)
     VALUES ($1::uuid, $2, $3::uuid, $4, $4, 1, 1, $5::jsonb, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11, $4, $12, $13::jsonb)`,
    accountId,
    id,
    siteId,
    v.at,
    JSON.stringify(pages),
    v.email ?? null,
    JSON.stringify({ country: v.country ?? 'DE', region: 'Berlin', city: 'Berlin', time_zone: 'Europe/Berlin' }),
    JSON.stringify({ name: v.company?.name ?? 'Home ISP', type: v.networkType ?? (v.company ? 'business' : 'isp'), asn: 64500 }),
    v.company ? JSON.stringify({ ...v.company, asn: 64500, type: 'business' }) : null,
    v.company?.domain ?? null,
    v.score,
    intentRank(v.score, v.at, DEFAULT_HALF_LIFE_DAYS),
    JSON.stringify(contributions),
  );
  return id;
}

/** Changes a profile's score (as the pipeline would) to `score` as of `at`. */
export async function rescore(accountId: string, id: string, score: number, at: Date): Promise<void> {
  await testSql().$executeRawUnsafe(
    `UPDATE visitors.visitor_profiles SET intent_raw = $3::float8, intent_at = $4, intent_rank = $5,
       intent_contributions = jsonb_build_array(jsonb_build_object('key', 'page_view', 'reason', $3::float8::text || ' page views', 'units', $3::float8, 'at', $6::text))
     WHERE account_id = $1::uuid AND id = $2`,
    accountId,
    id,
    score,
    at,
    intentRank(score, at, DEFAULT_HALF_LIFE_DAYS),
    at.toISOString(),
  );
}

export const newAccount = () => randomUUID();
