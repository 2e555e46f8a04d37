import { alertWindowStart, globToLike, needsFirmographics, segmentCreateSchema, segmentFilterSchema, visitorConditions } from './segment-filter';
import { segmentMembersSql } from '../data/segment-sql';
import { segmentDigestEventId, segmentEnteredEventId } from './track-event-id';

describe('a segment filter', () => {
  it('when a page glob has LIKE wildcards or a backslash, then they stay literal and only * matches any run', () => {
    expect(globToLike('/pricing*')).toBe('/pricing%');
    expect(globToLike('/a_b%c\\d*/x')).toBe('/a\\_b\\%c\\\\d%/x');
    expect(globToLike('/exact')).toBe('/exact');
  });

  it('when a filter is parsed, then a country is upper-cased and an unknown field, a bad glob, a score past 100 or a non-integer window is refused', () => {
    expect(segmentFilterSchema.parse({ country: 'de', min_score: 40 })).toEqual({ country: 'DE', min_score: 40 });
    for (const bad of [
      { colour: 'red' },
      { pages: { pattern: 'pricing', within_days: 7 } },
      { min_score: 101 },
      { pages: { pattern: '/p*', within_days: 1.5 } },
      { events: { name: 'has space', within_days: 7 } },
      { network_type: 'satellite' },
      { identified: 'yes' },
    ])
      expect(segmentFilterSchema.safeParse(bad).success).toBe(false);
    expect(segmentCreateSchema.safeParse({ name: 'x', kind: 'people', filter: {} }).success).toBe(false);
    expect(segmentCreateSchema.safeParse({ name: ' ', kind: 'visitors', filter: {} }).success).toBe(false);
    expect(needsFirmographics({ size: '51-200' })).toBe(true);
    expect(needsFirmographics({ country: 'DE' })).toBe(false);
  });

  it('when conditions are written, then each value is a parameter numbered from the first given, never SQL text', () => {
    const c = visitorConditions(
      { country: 'DE', network_type: 'business', identified: true, pages: { pattern: "/x'*", within_days: 7 }, events: { name: 'demo', within_days: 3 } },
      4,
      '$2::timestamptz',
    );
    expect(c.params).toEqual(['DE', 'business', "/x'%", 7, 'event:demo', 3]);
    expect(c.sql).toContain('p.email IS NOT NULL');
    expect(c.sql).toContain('$9::int');
    expect(c.sql).not.toContain("/x'");
    expect(visitorConditions({}, 4, 'now()')).toEqual({ sql: 'true', params: [] });
  });

  it('when a visitors segment has a minimum score, then it is a bound on the rank computed for now (the index serves it); a companies segment compares the summed score', () => {
    const at = new Date('2026-12-03T12:00:00Z');
    const v = segmentMembersSql('visitors', { country: 'DE', min_score: 32 }, 7, at);
    // score >= 32 <=> rank >= log2(32) + now / half-life
    expect(v.params).toEqual(['DE', 5 + at.getTime() / 1000 / (7 * 86400)]);
    expect(v.sql).toContain('p.intent_rank >= $6::float8');
    expect(v.sql).toContain("p.location->>'country' = $5::text");
    const c = segmentMembersSql('companies', { min_score: 50, identified: false }, 7, at);
    expect(c.params).toEqual([50]);
    expect(c.sql).toContain('GROUP BY p.company_key');
    expect(c.sql).toContain('>= $5::float8');
    expect(c.sql).toContain('bool_or(p.email IS NULL)');
  });

  it('when the alert window is floored, then it starts at a multiple of its hours from the epoch (UTC)', () => {
    expect(alertWindowStart(new Date('2026-12-03T17:45:00Z'), 24).toISOString()).toBe('2026-12-03T00:00:00.000Z');
    expect(alertWindowStart(new Date('2026-12-03T17:45:00Z'), 6).toISOString()).toBe('2026-12-03T12:00:00.000Z');
    expect(alertWindowStart(new Date('2026-12-03T12:00:00Z'), 6).toISOString()).toBe('2026-12-03T12:00:00.000Z');
    expect(alertWindowStart(new Date('2026-12-03T17:45:00Z'), 1).toISOString()).toBe('2026-12-03T17:00:00.000Z');
  });

  it('when event ids are made, then the same segment, member and window (or day) give the same UUID and another gives another', () => {
    const a = segmentEnteredEventId('s1', 'v1', '2026-12-03T00:00:00.000Z');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(segmentEnteredEventId('s1', 'v1', '2026-12-03T00:00:00.000Z')).toBe(a);
    expect(segmentEnteredEventId('s1', 'v1', '2026-12-04T00:00:00.000Z')).not.toBe(a);
    expect(segmentDigestEventId('s1', '2026-12-03')).toBe(segmentDigestEventId('s1', '2026-12-03'));
    expect(segmentDigestEventId('s1', '2026-12-03')).not.toBe(segmentDigestEventId('s1', '2026-12-04'));
  });
});
