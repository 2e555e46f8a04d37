// What the two lookups answer through the gateway: the enriched record (api.md §2.3), whole and
// typed for a full person and for a sparse one, found by any way of writing an email or a phone;
// and the visitor details record (api.md §2.1) drawn from it.
import { generatePerson, normalizeRecord, nullTypedFields, recordViolations, type EnrichedRecord } from '@glimpse/enrichment';
import { closeTestDb, createTestAccount, createTestApiKey, startLookupStack } from '../../../test/support/stack';
import { details, enrich, importPersonRecords, importVisitorRows, randomObjectId, randomSeed, uniqueTag } from './lookup-test-helpers';

// The spec's api.md §2.3 tables, written out here rather than read from the code's schema, so a member
// or field lost (or invented) anywhere between the import and the response shows up.
const LOCATION = ['name', 'city', 'state', 'locality', 'metro', 'region', 'country', 'continent', 'street_address', 'address_line_2', 'postal_code', 'geo'];
const SPEC_OBJECTS: Record<string, string[]> = {
  '': [
    'profile',
    'traits',
    'social',
    'company',
    'organization',
    'job',
    'location',
    'location_names',
    'street_addresses',
    'regions',
    'experience',
    'interests',
    'skills',
    'device',
  ],
  profile: ['id', 'alias', 'email'],
  traits: [
    'id',
    'email',
    'full_name',
    'first_name',
    'last_name',
    'middle_initial',
    'middle_name',
    'work_email',
    'recommended_personal_email',
    'emails',
    'gender',
    'birth_year',
    'birth_date',
    'mobile_phone',
    'phone_numbers',
    'industry',
    'home_owner',
    'married',
    'children',
    'email_status',
    'extrapolated_email_confidence',
    'photo_url',
  ],
  'traits.emails[]': ['address', 'type'],
  social: ['pronet', 'social1', 'social2', 'codehost'],
  'social.pronet': ['id', 'url', 'username'],
  'social.social1': ['url', 'username'],
  'social.social2': ['url', 'username'],
  'social.codehost': ['url', 'username'],
  company: ['name', 'size', 'founded', 'industry', 'description', 'revenue', 'phone_numbers', 'website', 'pronet', 'location'],
  'company.pronet': ['url', 'id'],
  'company.location': LOCATION,
  organization: [
    'id',
    'name',
    'website_url',
    'blog_url',
    'startup_url',
    'pronet_url',
    'social2_url',
    'social1_url',
    'logo_url',
    'funding_url',
    'primary_phone',
    'languages',
    'traffic_ranking',
    'phone',
    'sanitized_phone',
    'pronet_uid',
    'founded_year',
    'publicly_traded_symbol',
    'publicly_traded_exchange',
    'primary_domain',
    'sic_codes',
    'naics_codes',
    'industry',
    'estimated_num_employees',
    'keywords',
    'organization_revenue_printed',
    'annual_revenue_printed',
    'organization_revenue',
    'annual_revenue',
    'industries',
    'secondary_industries',
    'snippets_loaded',
    'industry_tag_id',
    'industry_tag_hash',
    'retail_location_count',
    'raw_address',
    'street_address',
    'city',
    'state',
    'postal_code',
    'country',
    'owned_by_organization_id',
    'owned_by_organization',
    'short_description',
    'suborganizations',
    'num_suborganizations',
    'total_funding',
    'total_funding_printed',
    'latest_funding_round_date',
    'latest_funding_stage',
    'funding_events',
    'technology_names',
    'current_technologies',
    'org_chart_root_people_ids',
    'org_chart_sector',
    'org_chart_removed',
    'org_chart_show_department_filter',
    'organization_headcount_six_month_growth',
    'organization_headcount_twelve_month_growth',
    'organization_headcount_twenty_four_month_growth',
  ],
  'organization.primary_phone': ['number', 'source', 'sanitized_number'],
  'organization.owned_by_organization': ['id', 'name', 'website_url'],
  'organization.funding_events[]': ['id', 'date', 'news_url', 'type', 'investors', 'amount', 'currency'],
  'organization.current_technologies[]': ['uid', 'name', 'category'],
  job: ['title', 'role', 'headline', 'seniority', 'sub_role', 'title_levels', 'income_range', 'net_worth', 'functions', 'departments', 'subdepartments'],
  location: [...LOCATION, 'last_updated'],
  'experience[]': ['company', 'location_names', 'start_date', 'end_date', 'title', 'is_primary'],
  'experience[].company': ['name', 'size', 'id', 'founded', 'industry', 'location', 'pronet_url', 'pronet_id', 'social1_url', 'social2_url', 'website'],
  'experience[].company.location': LOCATION.filter((k) => k !== 'city' && k !== 'state'),
  'experience[].title': ['name', 'role', 'sub_role', 'levels'],
  device: ['type'],
};
const SPEC_ARRAYS = [
  'location_names',
  'street_addresses',
  'regions',
  'experience',
  'interests',
  'skills',
  'traits.emails',
  'traits.phone_numbers',
  'company.phone_numbers',
  'organization.languages',
  'organization.sic_codes',
  'organization.naics_codes',
  'organization.keywords',
  'organization.industries',
  'organization.secondary_industries',
  'organization.suborganizations',
  'organization.funding_events',
  'organization.technology_names',
  'organization.current_technologies',
  'organization.org_chart_root_people_ids',
  'job.title_levels',
  'job.functions',
  'job.departments',
  'job.subdepartments',
  'experience[].location_names',
  'experience[].title.levels',
];

/** Every value at a path; `[]` steps into each element of an array. */
function valuesAt(root: unknown, path: string): unknown[] {
  let values = [root];
  for (const step of path.split('.').filter(Boolean)) {
    const key = step.replace(/\[\]$/, '');
    values = values.map((v) => (v as Record<string, unknown>)[key]);
    if (step.endsWith('[]')) values = values.flatMap((v) => (Array.isArray(v) ? v : [{ notAnArray: v }]));
  }
  return values;
}

/** Departures from the interface's member and field lists: each object has exactly its fields, each list is an array. */
function specWalk(record: unknown): string[] {
  const problems: string[] = [];
  for (const [path, fields] of Object.entries(SPEC_OBJECTS)) {
    for (const value of valuesAt(record, path)) {
      const keys = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : null;
      if (!keys || [...keys].sort().join() !== [...fields].sort().join()) problems.push(`${path || '(record)'}: has ${JSON.stringify(keys)}`);
    }
  }
  for (const path of SPEC_ARRAYS) {
    for (const value of valuesAt(record, path)) if (!Array.isArray(value)) problems.push(`${path}: not an array`);
  }
  return problems;
}

const seed = randomSeed();
let stack: Awaited<ReturnType<typeof startLookupStack>>;
let url: string;
let accountId: string;
let key: string;

beforeAll(async () => {
  stack = await startLookupStack();
  url = stack.gateway.url;
  ({ accountId } = await createTestAccount());
  ({ key } = await createTestApiKey(accountId, ['visitors:read', 'enrichment:read']));
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

async function imported(...records: unknown[]): Promise<void> {
  expect(await importPersonRecords(records)).toMatchObject({ imported: records.length, skipped: 0 });
}

async function enrichedId(body: unknown): Promise<string | number> {
  const res = await enrich(url, key, body);
  return res.status === 200 ? res.body.profile.id : res.status;
}

describe('finding a person', () => {
  it('when any of their emails is sent in any letter case or with spaces around it, then the same person is found', async () => {
    const person = generatePerson(0, seed);
    await imported(person);
    const { work_email, recommended_personal_email } = person.traits;
    const variants = [
      work_email!,
      work_email!.toUpperCase(),
      `  ${work_email}\t`,
      recommended_personal_email!,
      ` ${recommended_personal_email!.toUpperCase()} `,
    ];
    for (const email of variants) expect({ email, found: await enrichedId({ email }) }).toEqual({ email, found: person.profile.id });
  });

  it('when a phone is written "+1 (415) 555-0134", "415.555.0134" or "+14155550134" (region US), then it is the same person', async () => {
    const person: EnrichedRecord = {
      ...generatePerson(1, seed),
      traits: { ...generatePerson(1, seed).traits, mobile_phone: '+1 (415) 555-0134', phone_numbers: [] },
    };
    await imported(person);
    for (const phone of ['+1 (415) 555-0134', '415.555.0134', '+14155550134', '(415) 555-0134', '415-555-0134', '+1 415 555 0134']) {
      expect({ phone, found: await enrichedId({ phone }) }).toEqual({ phone, found: person.profile.id });
    }
  });

  it("when a demo person's phones are sent in another style than stored, then they are found", async () => {
    const person = generatePerson(2, seed);
    await imported(person);
    for (const stored of [person.traits.mobile_phone!, ...person.traits.phone_numbers]) {
      const digits = stored.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, '');
      const restyled = `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
      expect({ restyled, found: await enrichedId({ phone: restyled }) }).toEqual({ restyled, found: person.profile.id });
    }
  });

  it("when the email and the phone match different people, then the email's person wins; an unmatched email falls back to the phone", async () => {
    const a = generatePerson(3, seed);
    const b = generatePerson(4, seed);
    await imported(a, b);
    expect(await enrichedId({ email: a.traits.work_email, phone: b.traits.mobile_phone })).toBe(a.profile.id);
    expect(await enrichedId({ phone: b.traits.mobile_phone, email: a.traits.work_email })).toBe(a.profile.id);
    expect(await enrichedId({ email: b.traits.work_email, phone: a.traits.mobile_phone })).toBe(b.profile.id);
    expect(await enrichedId({ email: `nobody.${uniqueTag()}@nowhere.example`, phone: b.traits.mobile_phone })).toBe(b.profile.id);
  });
});

describe('the enriched record (api.md §2.3)', () => {
  it('when a fully filled person is enriched, then the body walks the whole api.md §2.3 shape with its types and formats, null only where the interface makes null data, nothing lost', async () => {
    const person = generatePerson(5, seed);
    await imported(person);

    const res = await enrich(url, key, { email: person.traits.work_email });

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(specWalk(res.body)).toEqual([]);
    expect(recordViolations(res.body)).toEqual([]);
    // The only nulls are the end dates of current positions: there null is data (api.md §2.3).
    const current = (res.body.experience as EnrichedRecord['experience']).flatMap((e, i) => (e.is_primary ? [`experience[${i}].end_date`] : []));
    expect(current).toHaveLength(1);
    expect(nullTypedFields(res.body)).toEqual(current);
    // Members in the interface's order, although Postgres jsonb keeps keys in its own order.
    expect(Object.keys(res.body)).toEqual(SPEC_OBJECTS['']);
    expect(res.body).toEqual(normalizeRecord(person));
    expect(res.body).toEqual(JSON.parse(JSON.stringify(person)));
  });

  it('when a sparse record (only profile.id and an email) is enriched, then every member and field is still there, null or empty, with no violations', async () => {
    const id = randomObjectId();
    const email = `sparse.${uniqueTag()}@example.com`;
    await imported({ profile: { id: id.toUpperCase(), email } });

    const res = await enrich(url, key, { email });

    expect(res.status).toBe(200);
    expect(specWalk(res.body)).toEqual([]);
    expect(recordViolations(res.body)).toEqual([]);
    expect(res.body.profile).toEqual({ id, alias: null, email });
    const nullTyped = nullTypedFields(res.body);
    expect(nullTyped).not.toContain('profile.id');
    expect(nullTyped).not.toContain('profile.email');
    expect(nullTyped).toEqual(
      expect.arrayContaining([
        'profile.alias',
        'traits.full_name',
        'traits.birth_year',
        'company.location.geo',
        'organization.snippets_loaded',
        'location.city',
        'device.type',
      ]),
    );
    for (const path of SPEC_ARRAYS.filter((p) => !p.includes('[]'))) expect({ path, value: valuesAt(res.body, path)[0] }).toEqual({ path, value: [] });
    expect(res.body.organization.industry_tag_hash).toEqual({});
    expect(res.body.traits.middle_name).toBeNull();
    expect(res.body.location.last_updated).toBeNull();
  });
});

describe('the visitor details record (api.md §2.1)', () => {
  const SEVEN = ['firstName', 'lastName', 'name', 'email', 'company', 'company_role', 'pronet_url'];

  it('when a visitor is looked up, then the seven fields come from the record: work email first, role = job title, pronet_url = social.pronet.url', async () => {
    const base = generatePerson(6, seed);
    // profile.email is the personal address here, so "work email first" is visible.
    const person: EnrichedRecord = { ...base, profile: { ...base.profile, email: base.traits.recommended_personal_email } };
    await imported(person);
    const visitorId = randomObjectId();
    await importVisitorRows(accountId, [{ visitorId, email: person.traits.recommended_personal_email }]);

    const res = await details(url, key, visitorId);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      firstName: person.traits.first_name,
      lastName: person.traits.last_name,
      name: person.traits.full_name,
      email: person.traits.work_email,
      company: person.company.name,
      company_role: person.job.title,
      pronet_url: person.social.pronet.url,
    });
    expect(Object.keys(res.body)).toEqual(SEVEN);
    expect(res.body.email).not.toBe(person.profile.email);
    expect(URL.canParse(res.body.pronet_url)).toBe(true);
  });

  it('when the visitor was imported with page views, then page_views and last_seen_at are added to the seven fields', async () => {
    const person = generatePerson(7, seed);
    await imported(person);
    const visitorId = randomObjectId();
    await importVisitorRows(accountId, [{ visitorId, email: person.traits.work_email, page_views: 12, last_seen_at: '2026-01-02T03:04:05Z' }]);

    const res = await details(url, key, visitorId);

    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ firstName: person.traits.first_name, email: person.traits.work_email, company_role: person.job.title }));
    expect(res.body.page_views).toBe(12);
    expect(res.body.last_seen_at).toBe('2026-01-02T03:04:05.000Z');
    expect(Object.keys(res.body)).toEqual([...SEVEN, 'page_views', 'last_seen_at']);
  });

  it('when the visitor is a sparse person, then the fields the record lacks are left out, never null (api.md §2.1: strings, none required)', async () => {
    const email = `sparse.${uniqueTag()}@example.com`;
    await imported({ profile: { id: randomObjectId(), email } });
    const visitorId = randomObjectId();
    await importVisitorRows(accountId, [{ visitorId, email }]);

    const res = await details(url, key, visitorId);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email });
  });

  it('when the record holds a scheme-less profile URL and an invalid work email, then pronet_url is an absolute https URI and email the next valid address', async () => {
    const base = generatePerson(8, seed);
    const handle = `in/${uniqueTag()}`;
    const person: EnrichedRecord = {
      ...base,
      traits: { ...base.traits, work_email: 'not an email' },
      social: { ...base.social, pronet: { ...base.social.pronet, url: `pronet.example/${handle}` } },
    };
    await imported(person);
    const visitorId = randomObjectId();
    await importVisitorRows(accountId, [{ visitorId, email: person.profile.email }]);

    const res = await details(url, key, visitorId);

    expect(res.status).toBe(200);
    expect(res.body.pronet_url).toBe(`https://pronet.example/${handle}`);
    expect(res.body.email).toBe(person.profile.email);
    // The enrichment record serves both as stored: api.md §2.3 states no format for them.
    const record = await enrich(url, key, { email: person.profile.email });
    expect(record.body.social.pronet.url).toBe(`pronet.example/${handle}`);
    expect(record.body.traits.work_email).toBe('not an email');
  });
});
