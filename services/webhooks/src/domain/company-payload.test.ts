import { randomUUID } from 'node:crypto';
import { companyVisitedPayloadSchema, type CompanyRecord } from '@glimpse/api';
import type { CompanyVisitedMessage } from '@glimpse/messaging';
import { companyVisitedPayloadOf } from './company-payload';

const message = (fields: Partial<CompanyVisitedMessage> = {}): CompanyVisitedMessage => ({
  eventId: randomUUID(),
  accountId: randomUUID(),
  siteId: randomUUID(),
  company: 'engines.example',
  name: 'ENGINES-NET',
  domain: 'engines.example',
  visitorId: '65f1a2b3c4d5e6f7a8b9c0d1',
  windowStart: '2026-11-29T00:00:00.000Z',
  at: '2026-11-29T10:00:00.000Z',
  network: { name: 'ENGINES-NET', type: 'business', asn: 64500 },
  location: { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' },
  ...fields,
});

const record: CompanyRecord = {
  domain: 'engines.example',
  name: 'Analytical Engines Ltd',
  industry: 'Computing',
  size: '51-200',
  employees: 120,
  founded: 1837,
  location: { country: 'GB', region: 'England', city: 'London' },
  pronet_url: 'https://pronet.example/company/engines',
};

describe('company.visited payload', () => {
  it("when the company has a record, then the body names the company with its firmographics, the site, visitor, network, location and window, at the visit's time", () => {
    const m = message();
    const payload = companyVisitedPayloadOf(m, record);
    expect(payload).toEqual({
      type: 'company.visited',
      timestamp: m.at,
      data: {
        site_id: m.siteId,
        visitor_id: m.visitorId,
        company: {
          key: 'engines.example',
          name: 'Analytical Engines Ltd',
          domain: 'engines.example',
          industry: 'Computing',
          size: '51-200',
          employees: 120,
          founded: 1837,
          location: { country: 'GB', region: 'England', city: 'London' },
          pronet_url: 'https://pronet.example/company/engines',
        },
        network: { name: 'ENGINES-NET', type: 'business', asn: 64500 },
        location: { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' },
        window_start: m.windowStart,
      },
    });
    // The documented shape (CompanyVisitedPayload in the OpenAPI document) is the one built.
    expect(companyVisitedPayloadSchema.parse(payload)).toEqual(payload);
  });

  it("when there is no record, then every firmographic field is null and the name is the network data's", () => {
    const payload = companyVisitedPayloadOf(message(), null);
    expect(payload.data.company).toEqual({
      key: 'engines.example',
      name: 'ENGINES-NET',
      domain: 'engines.example',
      industry: null,
      size: null,
      employees: null,
      founded: null,
      location: { country: null, region: null, city: null },
      pronet_url: null,
    });
    expect(companyVisitedPayloadSchema.safeParse(payload).success).toBe(true);
  });

  it('when the company is known by name only, without network or location, then key, name and nulls are kept as they are', () => {
    const m = message({ company: 'acme research', name: 'Acme Research', domain: null, network: null, location: null });
    const payload = companyVisitedPayloadOf(m, null);
    expect(payload.data).toMatchObject({ company: { key: 'acme research', name: 'Acme Research', domain: null }, network: null, location: null });
    expect(companyVisitedPayloadSchema.safeParse(payload).success).toBe(true);
  });

  it('when the network type is one the API does not list, then it is unknown', () => {
    const payload = companyVisitedPayloadOf(message({ network: { name: null, type: 'satellite', asn: null } }), record);
    expect(payload.data.network).toEqual({ name: null, type: 'unknown', asn: null });
  });

  it('when the record has fields beyond the payload, then they are left out', () => {
    const payload = companyVisitedPayloadOf(message(), { ...record, revenue: '1M' } as CompanyRecord);
    expect(payload.data.company).not.toHaveProperty('revenue');
    expect(companyVisitedPayloadSchema.safeParse(payload).success).toBe(true);
  });
});
