// Imports through the operator CLI (`glimpse import persons|visitors`, `glimpse demo`) on real
// NDJSON files, checked through the lookups over HTTP: bad lines are reported by number and
// skipped, a re-import replaces the person and re-indexes their emails and phones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { generatePerson, type EnrichedRecord } from '@glimpse/enrichment';
import { demoVisitorId } from '../../../tools/cli/src/commands/imports';
import { closeTestDb, createTestAccount, createTestApiKey, startLookupStack, testDb } from '../../../test/support/stack';
import { cli, details, enrich, randomObjectId, randomSeed, uniqueTag } from './lookup-test-helpers';

const seed = randomSeed();
let dir: string;
let stack: Awaited<ReturnType<typeof startLookupStack>>;
let url: string;
let accountId: string;
let key: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-import-'));
  stack = await startLookupStack();
  url = stack.gateway.url;
  ({ accountId } = await createTestAccount());
  ({ key } = await createTestApiKey(accountId, ['visitors:read', 'enrichment:read']));
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
  fs.rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** An NDJSON file of these lines (objects are serialized, strings written as they are). */
function ndjson(lines: unknown[]): string {
  const file = path.join(dir, `import-${(files += 1)}.ndjson`);
  fs.writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

async function foundBy(body: unknown): Promise<string | number> {
  const res = await enrich(url, key, body);
  return res.status === 200 ? res.body.profile.id : res.status;
}

describe('glimpse import persons', () => {
  it('when some lines are bad, then each is reported with its line number and skipped, the rest imported, progress on stderr', async () => {
    const [first, second] = [generatePerson(0, seed), generatePerson(1, seed)];
    const sparse = { profile: { id: randomObjectId(), email: `sparse.${uniqueTag()}@example.com` } };
    const file = ndjson([
      first, // 1
      '{"profile": {"id": ', // 2: not JSON
      '', // 3: blank, not a record
      { traits: { email: `x.${uniqueTag()}@example.com` } }, // 4: no profile.id
      { profile: { id: 'not-an-object-id' } }, // 5: bad id
      second, // 6
      '[1, 2, 3]', // 7: not an object
      { profile: { id: 123456789012 } }, // 8: id not a string
      { profile: { id: `${randomObjectId()}ff` } }, // 9: 26 hex
      sparse, // 10
    ]);

    const result = await cli('import', 'persons', file, '--json');

    expect(result.code).toBe(0);
    const report = result.json();
    expect(report).toEqual({ read: 9, imported: 3, skipped: 6, errors: expect.any(Array) });
    expect(report.errors.map((e: { line: number }) => e.line)).toEqual([2, 4, 5, 7, 8, 9]);
    expect(report.errors).toEqual([
      { line: 2, message: expect.stringContaining('JSON') },
      { line: 4, message: expect.stringContaining('profile.id') },
      { line: 5, message: expect.stringContaining('profile.id') },
      { line: 7, message: expect.stringContaining('object') },
      { line: 8, message: expect.stringContaining('profile.id') },
      { line: 9, message: expect.stringContaining('profile.id') },
    ]);
    // Progress is for the operator's eyes: stderr, so stdout stays one JSON value.
    expect(result.stderr).toMatch(/persons: 3 imported, 6 skipped/);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);

    expect(await foundBy({ email: first.traits.work_email })).toBe(first.profile.id);
    expect(await foundBy({ phone: second.traits.mobile_phone })).toBe(second.profile.id);
    expect(await foundBy({ email: sparse.profile.email })).toBe(sparse.profile.id);

    // Without --json the operator reads the same report as text.
    const human = await cli('import', 'persons', file);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('imported 3, skipped 6 of 9 lines');
    for (const line of [2, 4, 5, 7, 8, 9]) expect(human.stdout).toContain(`line ${line}: `);
  });

  it('when the file is missing or not named, then the CLI says so and imports nothing', async () => {
    const missing = await cli('import', 'persons', path.join(dir, 'nope.ndjson'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
    const unnamed = await cli('import', 'persons');
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('Usage: glimpse import persons');
  });

  it('when a person is re-imported, then the record is replaced and identities re-indexed: removed emails and phones 404, new ones find them', async () => {
    const before = generatePerson(2, seed);
    expect((await cli('import', 'persons', ndjson([before]), '--json')).json()).toMatchObject({ imported: 1, skipped: 0 });
    expect(await foundBy({ email: before.traits.recommended_personal_email })).toBe(before.profile.id);
    expect(await foundBy({ phone: before.traits.mobile_phone })).toBe(before.profile.id);

    const newEmail = `moved.${uniqueTag()}@new-employer.example`;
    const newPhone = `+44 113 496 0${randomInt(100, 999)}`;
    const after: EnrichedRecord = {
      ...before,
      profile: { ...before.profile, email: newEmail },
      traits: {
        ...before.traits,
        email: newEmail,
        work_email: newEmail,
        recommended_personal_email: null,
        emails: [{ address: newEmail, type: 'professional' }],
        mobile_phone: newPhone,
        phone_numbers: [],
      },
      job: { ...before.job, title: 'Chief Replacement Officer' },
      skills: [],
    };
    // The profile id in upper case is the same person.
    const upperId = { ...after, profile: { ...after.profile, id: after.profile.id!.toUpperCase() } };
    const result = await cli('import', 'persons', ndjson([upperId]), '--json');
    expect(result.json()).toMatchObject({ imported: 1, skipped: 0 });

    for (const gone of [
      { email: before.traits.work_email },
      { email: before.traits.recommended_personal_email },
      ...[before.traits.mobile_phone, ...before.traits.phone_numbers].map((phone) => ({ phone })),
    ]) {
      expect({ gone, found: await foundBy(gone) }).toEqual({ gone, found: 404 });
    }
    const res = await enrich(url, key, { phone: newPhone });
    expect(res.status).toBe(200);
    expect(res.body.profile).toEqual({ ...after.profile });
    expect(res.body.job.title).toBe('Chief Replacement Officer');
    expect(res.body.skills).toEqual([]);
    expect(res.body.traits.recommended_personal_email).toBeNull();
    expect(await foundBy({ email: newEmail.toUpperCase() })).toBe(before.profile.id);
    expect(await testDb('enrichment').person.count({ where: { id: { in: [before.profile.id!, before.profile.id!.toUpperCase()] } } })).toBe(1);
  });

  it('when one file holds the same person twice, or a later person claims an email, then the later line wins', async () => {
    const person = generatePerson(3, seed);
    const claimant = generatePerson(4, seed);
    const renamed = { ...person, job: { ...person.job, title: 'Second Line Wins' } };
    const stolen = {
      ...claimant,
      traits: { ...claimant.traits, emails: [...claimant.traits.emails, { address: person.traits.recommended_personal_email, type: 'personal' }] },
    };

    expect((await cli('import', 'persons', ndjson([person, renamed]), '--json')).json()).toMatchObject({ read: 2, imported: 2, skipped: 0 });
    const res = await enrich(url, key, { email: person.traits.work_email });
    expect(res.body.job.title).toBe('Second Line Wins');

    expect((await cli('import', 'persons', ndjson([stolen]), '--json')).json()).toMatchObject({ imported: 1 });
    expect(await foundBy({ email: person.traits.recommended_personal_email })).toBe(claimant.profile.id);
    expect(await foundBy({ email: person.traits.work_email })).toBe(person.profile.id);
  });
});

describe('glimpse import visitors', () => {
  it('when a line names an email nobody has, or is otherwise bad, then that line is reported and skipped; the rest are looked up', async () => {
    const person = generatePerson(5, seed);
    expect((await cli('import', 'persons', ndjson([person]), '--json')).code).toBe(0);
    const [known, unknown] = [randomObjectId(), randomObjectId()];
    const file = ndjson([
      { visitorId: known, email: ` ${person.traits.work_email!.toUpperCase()} `, page_views: 3 }, // 1
      { visitorId: unknown, email: `nobody.${uniqueTag()}@nowhere.example` }, // 2: unknown email
      { visitorId: 'xyz', email: person.traits.work_email }, // 3: bad id
      { visitorId: randomObjectId(), email: 'not-an-email' }, // 4: bad email
      'visitor,email', // 5: not JSON
    ]);

    const result = await cli('import', 'visitors', '--account', accountId, file, '--json');

    expect(result.code).toBe(0);
    const report = result.json();
    expect(report).toMatchObject({ read: 5, imported: 1, skipped: 4 });
    const byLine = [...report.errors].sort((a: { line: number }, b: { line: number }) => a.line - b.line);
    expect(byLine).toEqual([
      { line: 2, message: expect.stringContaining('no imported person has this email') },
      { line: 3, message: expect.stringContaining('visitorId') },
      { line: 4, message: expect.stringContaining('email') },
      { line: 5, message: expect.stringContaining('JSON') },
    ]);
    expect(result.stderr).toMatch(/visitors: 1 imported, 4 skipped/);

    const found = await details(url, key, known);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ name: person.traits.full_name, email: person.traits.work_email, page_views: 3 });
    expect((await details(url, key, unknown)).status).toBe(404);

    // A re-import replaces the visitor's page views.
    expect(
      (await cli('import', 'visitors', '--account', accountId, ndjson([{ visitorId: known, email: person.traits.work_email }]), '--json')).json(),
    ).toMatchObject({ imported: 1 });
    expect(Object.keys((await details(url, key, known)).body)).not.toContain('page_views');
  });
});

describe('an account that does not exist', () => {
  it.each([
    ['unknown', '00000000-0000-4000-8000-000000000000'],
    ['not an id', 'acme'],
  ])('when import visitors or demo name an %s account, then they exit 1 with not_found and write nothing', async (_what, account) => {
    const person = generatePerson(6, seed);
    expect((await cli('import', 'persons', ndjson([person]), '--json')).code).toBe(0);
    const visitors = await cli(
      'import',
      'visitors',
      '--account',
      account,
      ndjson([{ visitorId: randomObjectId(), email: person.traits.work_email }]),
      '--json',
    );
    expect(visitors.code).toBe(1);
    expect(visitors.stderr).toContain(`not_found: account ${account} does not exist`);

    const demoSeed = randomSeed();
    const demo = await cli('demo', '--persons', '3', '--seed', String(demoSeed), '--account', account, '--json');
    expect(demo.code).toBe(1);
    expect(demo.stderr).toContain(`not_found: account ${account} does not exist`);
    expect(await testDb('enrichment').person.count({ where: { id: generatePerson(0, demoSeed).profile.id! } })).toBe(0);
  });
});

describe('glimpse demo', () => {
  it('when run for 50 persons and an account, then 50 persons and 50 visitors are imported and their details and enrichment lookups work', async () => {
    const demoSeed = randomSeed();
    const result = await cli('demo', '--persons', '50', '--seed', String(demoSeed), '--account', accountId, '--json');

    expect(result.code).toBe(0);
    expect(result.json()).toEqual({ persons: 50, visitors: 50, seed: demoSeed });
    const people = Array.from({ length: 50 }, (_, i) => generatePerson(i, demoSeed));
    expect(await testDb('enrichment').person.count({ where: { id: { in: people.map((p) => p.profile.id!) } } })).toBe(50);

    const answers = await Promise.all(people.map((_, i) => details(url, key, demoVisitorId(accountId, i))));
    answers.forEach((res, i) => {
      const person = people[i]!;
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
      expect(res.body).toEqual({
        firstName: person.traits.first_name,
        lastName: person.traits.last_name,
        name: person.traits.full_name,
        email: person.traits.work_email,
        company: person.company.name,
        company_role: person.job.title,
        pronet_url: person.social.pronet.url,
        page_views: 1 + (i % 17),
        last_seen_at: expect.any(String),
      });
    });
    const last = people[49]!;
    expect(await foundBy({ email: last.traits.recommended_personal_email })).toBe(last.profile.id);
    expect(await foundBy({ phone: last.traits.mobile_phone })).toBe(last.profile.id);
  });
});
