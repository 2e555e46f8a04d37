import { normalizeRecord } from './enriched-record.js';
import { readPageViews, servedDetails, toVisitorDetails } from './visitor-details.js';

const DETAIL_KEYS = ['firstName', 'lastName', 'name', 'email', 'company', 'company_role', 'pronet_url'];

describe('toVisitorDetails', () => {
  it('when the record is complete, then the seven api.md §2.1 fields come from the person, the company and the job', () => {
    const record = normalizeRecord({
      profile: { email: 'ada@acme.example' },
      traits: { first_name: 'Ada', last_name: 'Lovelace', full_name: 'Ada King Lovelace', work_email: 'Ada.Work@Acme.example' },
      company: { name: 'Acme Analytics' },
      organization: { name: 'Acme Analytics Inc.' },
      job: { title: 'VP of Engineering' },
      social: { pronet: { url: 'https://www.pronet.example/in/ada' } },
    });

    expect(toVisitorDetails(record)).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      name: 'Ada King Lovelace',
      email: 'ada.work@acme.example',
      company: 'Acme Analytics',
      company_role: 'VP of Engineering',
      pronet_url: 'https://www.pronet.example/in/ada',
    });
  });

  it('when the record is empty, then every field is left out (none is null) and no page-view field is added', () => {
    expect(toVisitorDetails(normalizeRecord({}))).toEqual({});
  });

  it('when the profile URL has no scheme, then pronet_url is it as an absolute https URI; when it cannot be one, it is left out', () => {
    const urlOf = (url: string) => toVisitorDetails(normalizeRecord({ social: { pronet: { url } } })).pronet_url;
    expect(urlOf('pronet.example/in/x')).toBe('https://pronet.example/in/x');
    expect(urlOf('www.pronet.example/in/ada lovelace')).toBe('https://www.pronet.example/in/ada%20lovelace');
    expect(urlOf('http://pronet.example/in/x')).toBe('http://pronet.example/in/x');
    expect(urlOf('not a url')).toBeUndefined();
    expect(urlOf('javascript:alert(1)')).toBeUndefined();
  });

  it('when there is no full name, then the name is the first and last names', () => {
    expect(toVisitorDetails(normalizeRecord({ traits: { first_name: 'Ada', last_name: 'Lovelace' } })).name).toBe('Ada Lovelace');
    expect(toVisitorDetails(normalizeRecord({ traits: { first_name: 'Ada', full_name: '  ' } })).name).toBe('Ada');
  });

  it('when there is no work email, then the profile, trait, personal and listed emails are tried in that order', () => {
    const emailOf = (traits: object, profile: object = {}) => toVisitorDetails(normalizeRecord({ traits, profile })).email;
    expect(emailOf({ email: 'b@x.example' }, { email: 'a@x.example' })).toBe('a@x.example');
    expect(emailOf({ email: 'b@x.example', recommended_personal_email: 'c@x.example' })).toBe('b@x.example');
    expect(emailOf({ recommended_personal_email: 'c@x.example', emails: [{ address: 'd@x.example' }] })).toBe('c@x.example');
    expect(emailOf({ emails: [{ address: 'd@x.example' }, { address: 'e@x.example' }] })).toBe('d@x.example');
    expect(emailOf({ work_email: 'not an email', email: 'b@x.example' })).toBe('b@x.example');
  });

  it('when there is no company name, then the organization, then the primary position name the company', () => {
    const experience = [
      { company: { name: 'Old Co' }, title: { name: 'Analyst' }, is_primary: false, end_date: '2019-01' },
      { company: { name: 'Now Co' }, title: { name: 'Director of Data' }, is_primary: true },
    ];
    expect(toVisitorDetails(normalizeRecord({ organization: { name: 'Org Co' }, experience })).company).toBe('Org Co');
    const details = toVisitorDetails(normalizeRecord({ experience }));
    expect(details.company).toBe('Now Co');
    expect(details.company_role).toBe('Director of Data');
  });

  it('when no position is marked primary, then the latest one without an end date is the primary one', () => {
    const experience = [
      { company: { name: 'Old Co' }, title: { name: 'Analyst' }, end_date: '2019-01', start_date: '2015-01' },
      { company: { name: 'Side Co' }, title: { name: 'Advisor' }, start_date: '2018-03' },
      { company: { name: 'Now Co' }, title: { name: 'Lead' }, start_date: '2021-06' },
    ];
    expect(toVisitorDetails(normalizeRecord({ experience }))).toMatchObject({ company: 'Now Co', company_role: 'Lead' });
  });

  it('when the person has no pronet profile, then pronet_url is left out even if the organization has one', () => {
    expect(toVisitorDetails(normalizeRecord({ organization: { pronet_url: 'https://www.pronet.example/company/x' } }))).not.toHaveProperty('pronet_url');
  });

  it('when page views are given, then page_views and last_seen_at are added after the seven fields', () => {
    const record = normalizeRecord({
      traits: { first_name: 'Ada', last_name: 'Lovelace', full_name: 'Ada Lovelace', work_email: 'ada@x.example' },
      company: { name: 'X' },
      job: { title: 'CTO' },
      social: { pronet: { url: 'pronet.example/in/ada' } },
    });
    const details = toVisitorDetails(record, [
      { at: '2025-01-02T10:00:00Z', url: '/a' },
      { at: '2025-03-04T09:30:00.000Z', url: '/b' },
      '2024-12-01T00:00:00Z',
    ]);
    expect(Object.keys(details)).toEqual([...DETAIL_KEYS, 'page_views', 'last_seen_at']);
    expect(details).toMatchObject({ page_views: 3, last_seen_at: '2025-03-04T09:30:00.000Z' });
  });

  it('when page views have no time, then last_seen_at is left out; the stored details text gets the same fields spliced in', () => {
    expect(toVisitorDetails(normalizeRecord({ traits: { first_name: 'Ada' } }), 4)).toEqual({ firstName: 'Ada', name: 'Ada', page_views: 4 });
    const stored = JSON.stringify(toVisitorDetails(normalizeRecord({ traits: { first_name: 'Ada' } })));
    expect(JSON.parse(servedDetails(stored, 4))).toEqual({ firstName: 'Ada', name: 'Ada', page_views: 4 });
    expect(JSON.parse(servedDetails(stored, { count: 2, last_seen_at: '2026-01-02T03:04:05Z' }))).toEqual({
      firstName: 'Ada',
      name: 'Ada',
      page_views: 2,
      last_seen_at: '2026-01-02T03:04:05.000Z',
    });
    expect(JSON.parse(servedDetails('{}', 1))).toEqual({ page_views: 1 });
    expect(servedDetails(stored, undefined)).toBe(stored);
  });
});

describe('readPageViews', () => {
  it('when page views are stored as a count or a summary object, then they are read', () => {
    expect(readPageViews(12)).toEqual({ count: 12, lastSeenAt: null });
    expect(readPageViews({ count: 4, last_seen_at: '2025-05-01T08:00:00+02:00' })).toEqual({ count: 4, lastSeenAt: '2025-05-01T06:00:00.000Z' });
    expect(readPageViews({ page_views: 2, lastSeenAt: 'not a date' })).toEqual({ count: 2, lastSeenAt: null });
    expect(readPageViews({ pageViews: [{ at: '2025-02-01T00:00:00Z' }, { viewed_at: '2025-01-01T00:00:00Z' }] })).toEqual({
      count: 2,
      lastSeenAt: '2025-02-01T00:00:00.000Z',
    });
  });

  it('when there is nothing usable, then there are no page views', () => {
    for (const value of [undefined, null, -1, 1.5, 'many', { count: 'x' }, { count: -2 }, {}]) expect(readPageViews(value)).toBeNull();
  });
});
