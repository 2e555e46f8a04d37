import { COMPANY_COUNT, generateCompany, printedAmount, slugify } from './demo-companies.js';

describe('generateCompany', () => {
  it('when asked twice for one index, then the companies are equal but not shared', () => {
    const first = generateCompany(7);
    first.organization.keywords.push('changed');
    first.organization.name = 'Changed';
    expect(generateCompany(7).organization.name).not.toBe('Changed');
    expect(generateCompany(7).organization.keywords).not.toContain('changed');
  });

  it('when indexes run over every company, then names and organization ids are unique', () => {
    const companies = Array.from({ length: COMPANY_COUNT }, (_, i) => generateCompany(i));
    expect(new Set(companies.map((c) => c.organization.name)).size).toBe(COMPANY_COUNT);
    expect(new Set(companies.map((c) => c.organization.id)).size).toBe(COMPANY_COUNT);
  });

  it('when a company has funding rounds, then they are in date order and add up to the total', () => {
    for (let i = 0; i < 50; i++) {
      const org = generateCompany(i).organization;
      const dates = org.funding_events.map((e) => e.date!);
      expect(dates).toEqual([...dates].sort());
      expect(org.latest_funding_round_date).toBe(dates.at(-1));
      expect(org.total_funding_printed).toBe(printedAmount(org.total_funding!));
    }
  });
});

describe('printedAmount and slugify', () => {
  it('when amounts are printed, then they use K, M and B with one decimal at most', () => {
    expect(printedAmount(850_000)).toBe('850K');
    expect(printedAmount(12_500_000)).toBe('12.5M');
    expect(printedAmount(1_200_000_000)).toBe('1.2B');
  });

  it('when names have accents, apostrophes or spaces, then the slug is plain ascii with hyphens', () => {
    expect(slugify("Müller O'Brien & Co")).toBe('muller-obrien-co');
  });
});
