// Synthetic people for the demo dataset, benchmarks and tests: realistic, fully filled enriched
// records (every field whose type the interface gives is non-null), the same for the same index and
// seed on every run. Within one seed, ids, emails and phones are unique per index (phones for
// the first ~1.3 million indexes); other seeds give other people and other emails.
import type { EnrichedRecord, Experience } from '../domain/enriched-record.js';
import {
  AREA_CODES,
  CITIES,
  FEMALE_FIRST_NAMES,
  INTERESTS,
  LAST_NAMES,
  MALE_FIRST_NAMES,
  PERSONAL_EMAIL_DOMAINS,
  ROLES,
  SENIORITIES,
  STREET_NAMES,
  STREET_TYPES,
  type City,
  type Role,
  type Seniority,
} from './demo-pools.js';
import {
  COMPANY_COUNT,
  companyAt,
  companyLocation,
  copyJson,
  companySummary,
  experienceCompany,
  locationName,
  slugify,
  type DemoCompany,
} from './demo-companies.js';
import { combineSeeds, mix32, objectIdFor, seededRandom, type Random } from './seeded-random.js';

/** Work histories are dated back from June 2025, not from the clock, so output never changes. */
const REFERENCE_MONTH = 2025 * 12 + 5;

// Personal numbers are <area> 555-<line>: mobiles take lines 0100-4999 (0100-0199 is the range
// reserved for fiction), direct lines 5000-9899, so the two never collide.
const LINES_PER_AREA = 4900;
const PHONE_CAPACITY = AREA_CODES.length * LINES_PER_AREA;

function personalNumber(slot: number, firstLine: number): { area: string; line: string } {
  const n = slot % PHONE_CAPACITY;
  return { area: AREA_CODES[n % AREA_CODES.length]!, line: String(firstLine + Math.floor(n / AREA_CODES.length)).padStart(4, '0') };
}

/** The ways people write US numbers; identity normalization must read them all as one. */
const PHONE_STYLES = [
  (a: string, l: string) => `+1 (${a}) 555-${l}`,
  (a: string, l: string) => `(${a}) 555-${l}`,
  (a: string, l: string) => `${a}.555.${l}`,
  (a: string, l: string) => `${a}-555-${l}`,
  (a: string, l: string) => `+1${a}555${l}`,
  (a: string, l: string) => `+1 ${a} 555 ${l}`,
];

function formatMonth(month: number): string {
  return `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`;
}

interface Position {
  company: DemoCompany;
  city: City;
  seniority: Seniority;
  start: number;
  end: number | null;
}

/** The current position first, then earlier ones, each ending shortly before the next began. */
function workHistory(random: Random, seed: number, current: DemoCompany, city: City, seniority: Seniority): Position[] {
  const count = random.weighted([
    [1, 25],
    [2, 35],
    [3, 25],
    [4, 15],
  ] as const);
  const positions: Position[] = [{ company: current, city, seniority, start: REFERENCE_MONTH - random.int(3, 60), end: null }];
  const used = new Set([current.organization.id]);
  let level = SENIORITIES.findIndex((s) => s.seniority === seniority);
  while (positions.length < count) {
    let company = companyAt(random.int(0, COMPANY_COUNT - 1), seed);
    while (used.has(company.organization.id)) company = companyAt(random.int(0, COMPANY_COUNT - 1), seed);
    used.add(company.organization.id);
    level = Math.max(0, level - random.int(0, 1));
    const end = positions[positions.length - 1]!.start - random.int(0, 3);
    positions.push({ company, city: random.chance(0.7) ? city : company.hq, seniority: SENIORITIES[level]!.seniority, start: end - random.int(10, 48), end });
  }
  return positions;
}

type PhoneStyle = (typeof PHONE_STYLES)[number];
type Line = ReturnType<typeof personalNumber>;

/** The person's own fields: names, emails, birth, phones (in the order their random draws are taken). */
function personTraits(
  random: Random,
  p: {
    id: string;
    firstName: string;
    lastName: string;
    workEmail: string;
    personalEmail: string;
    gender: string;
    birthYear: number;
    industry: EnrichedRecord['traits']['industry'];
  },
  phones: { mobile: Line; direct: Line; mobileStyle: PhoneStyle; otherStyle: PhoneStyle },
): EnrichedRecord['traits'] {
  const { id, firstName, lastName, workEmail, personalEmail, gender, birthYear } = p;
  const { mobile, direct, mobileStyle, otherStyle } = phones;
  return {
    id,
    email: workEmail,
    full_name: `${firstName} ${lastName}`,
    first_name: firstName,
    last_name: lastName,
    middle_initial: null,
    middle_name: null,
    work_email: workEmail,
    recommended_personal_email: personalEmail,
    emails: [
      { address: workEmail, type: 'professional' },
      { address: personalEmail, type: 'personal' },
    ],
    gender,
    birth_year: birthYear,
    birth_date: `${birthYear}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`,
    mobile_phone: mobileStyle(mobile.area, mobile.line),
    phone_numbers: random.chance(0.5) ? [otherStyle(mobile.area, mobile.line), otherStyle(direct.area, direct.line)] : [otherStyle(mobile.area, mobile.line)],
    industry: p.industry,
    home_owner: null,
    married: null,
    children: null,
    email_status: null,
    extrapolated_email_confidence: null,
    photo_url: `https://images.glimpse.example/people/${id}.jpg`,
  };
}

function personSocial(random: Random, username: string, handle: string) {
  return {
    pronet: { id: String(random.int(100_000_000, 999_999_999)), url: `https://www.pronet.example/in/${username}`, username },
    social1: { url: `https://social1.example/${handle}`, username: handle },
    social2: { url: `https://www.social2.example/${handle}`, username: handle },
    codehost: { url: `https://codehost.example/${username}`, username },
  };
}

function personJob(role: Role, seniority: (typeof SENIORITIES)[number], title: string | null, orgName: string | null) {
  return {
    title,
    role: role.role,
    headline: `${title} at ${orgName}`,
    seniority: seniority.seniority,
    sub_role: null,
    title_levels: [seniority.seniority],
    income_range: seniority.incomeRange,
    net_worth: seniority.netWorth,
    functions: [role.role],
    departments: [role.department],
    subdepartments: [role.subdepartment],
  };
}

/** The index-th synthetic person of a seed (seed taken as an unsigned 32-bit integer). */
export function generatePerson(index: number, seed = 0): EnrichedRecord {
  const s = seed >>> 0;
  const random = seededRandom(combineSeeds(s, index, 0x9e));
  const id = objectIdFor('person', s, index);
  // A tag unique per (seed, index) keeps emails and handles unique; names alone would collide.
  const tag = s === 0 ? String(index) : `${s}-${index}`;
  const gender = random.chance(0.5) ? 'female' : 'male';
  const firstName = random.pick(gender === 'female' ? FEMALE_FIRST_NAMES : MALE_FIRST_NAMES);
  const lastName = random.pick(LAST_NAMES);
  const [first, last] = [slugify(firstName), slugify(lastName)];
  const current = companyAt(random.int(0, COMPANY_COUNT - 1), s);
  // A copy: the cached company is shared by every person who works there.
  const org = copyJson(current.organization);
  const city = random.chance(0.6) ? current.hq : random.pick(CITIES);
  const role = random.pick(ROLES);
  const seniority = random.weighted(SENIORITIES.map((x) => [x, x.weight] as const));
  const title = role.titles[seniority.seniority];
  const history = workHistory(random, s, current, city, seniority.seniority);

  const workEmail = `${first}.${last}.${tag}@${org.primary_domain}`;
  const personalEmail = `${first}${last}${tag}@${random.pick(PERSONAL_EMAIL_DOMAINS)}`;
  const phoneSlot = index + (s === 0 ? 0 : mix32(s) % PHONE_CAPACITY);
  const mobile = personalNumber(phoneSlot, 100);
  const direct = personalNumber(phoneSlot, 100 + LINES_PER_AREA);
  const [mobileStyle, otherStyle] = random.sample(PHONE_STYLES, 2) as [PhoneStyle, PhoneStyle];
  const phones = { mobile, direct, mobileStyle, otherStyle };
  const birthYear = random.int(1962, 2001);
  const username = `${first}-${last}-${tag}`;
  const handle = `${first}_${last}${tag.replace('-', '_')}`;
  const placeNames = [...new Set(history.map((p) => locationName(p.city)))];

  const experience: Experience[] = history.map((p, i) => ({
    company: experienceCompany(p.company),
    location_names: [locationName(p.city)],
    start_date: formatMonth(p.start),
    end_date: p.end === null ? null : formatMonth(p.end),
    title: { name: role.titles[p.seniority], role: role.role, sub_role: null, levels: [p.seniority] },
    is_primary: i === 0,
  }));

  return {
    profile: { id, alias: username, email: workEmail },
    traits: personTraits(random, { id, firstName, lastName, workEmail, personalEmail, gender, birthYear, industry: org.industry }, phones),
    social: personSocial(random, username, handle),
    company: companySummary(current),
    organization: org,
    job: personJob(role, seniority, title, org.name),
    location: { ...companyLocation(city), last_updated: null },
    location_names: placeNames,
    street_addresses: [`${random.int(100, 9899)} ${random.pick(STREET_NAMES)} ${random.pick(STREET_TYPES)}, ${city.city}, ${city.stateCode}`],
    regions: [...new Set(history.map((p) => p.city.state))],
    experience,
    interests: random.sample(INTERESTS, random.int(2, 5)),
    skills: random.sample(role.skills, random.int(3, 6)),
    device: {
      type: random.weighted([
        ['desktop', 60],
        ['mobile', 32],
        ['tablet', 8],
      ] as const),
    },
  };
}
