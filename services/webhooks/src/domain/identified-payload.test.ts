import { randomUUID } from 'node:crypto';
import { visitorIdentifiedPayloadSchema } from '@glimpse/api';
import type { VisitorIdentifiedMessage } from '@glimpse/messaging';
import { identifiedPayloadOf, personDetailsOf } from './identified-payload';

const message = (): VisitorIdentifiedMessage => ({
  eventId: randomUUID(),
  accountId: randomUUID(),
  siteId: randomUUID(),
  visitorId: '65f1a2b3c4d5e6f7a8b9c0d1',
  method: 'form',
  confidence: 0.6,
  verified: false,
  email: 'ada@example.com',
  at: '2026-11-29T10:00:00.000Z',
});

describe('visitor.identified payload', () => {
  it('when a visitor is identified, then the body names the visitor, site, method, confidence, email and the details, at the identification time', () => {
    const m = message();
    expect(identifiedPayloadOf(m, { name: 'Ada Lovelace', company: 'Engines' })).toEqual({
      type: 'visitor.identified',
      timestamp: m.at,
      data: {
        visitor_id: m.visitorId,
        site_id: m.siteId,
        method: 'form',
        confidence: 0.6,
        verified: false,
        email: 'ada@example.com',
        details: { name: 'Ada Lovelace', company: 'Engines' },
      },
    });
  });

  it("when a body is built, then it is the API's VisitorIdentifiedPayload (the document's visitor.identified webhook)", () => {
    const details = { firstName: 'Ada', email: 'ada@example.com', pronet_url: 'https://pronet.example/in/ada' };
    expect(visitorIdentifiedPayloadSchema.safeParse(identifiedPayloadOf(message(), details)).error).toBeUndefined();
    expect(visitorIdentifiedPayloadSchema.safeParse(identifiedPayloadOf(message(), {})).error).toBeUndefined();
  });

  it('when the identification was verified, then the body says verified: true; a message from before verification is a claim unless it was an email link', () => {
    expect(identifiedPayloadOf({ ...message(), method: 'identify', confidence: 1, verified: true }, {}).data).toMatchObject({ confidence: 1, verified: true });
    const { verified: _, ...old } = message();
    expect(identifiedPayloadOf({ ...old, method: 'identify', confidence: 1 }, {}).data.verified).toBe(false);
    expect(identifiedPayloadOf({ ...old, method: 'email_link', confidence: 1 }, {}).data.verified).toBe(true);
  });

  it('when enrichment answers more than the seven fields, or a field that is not a string, then only the seven strings are kept', () => {
    const answer = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      name: 'Ada Lovelace',
      email: 'ada@work.example',
      company: 'Engines',
      company_role: 'Analyst',
      pronet_url: 'https://pronet.example/ada',
      page_views: 3,
      last_seen_at: '2026-11-29T10:00:00.000Z',
    };
    expect(personDetailsOf(answer)).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      name: 'Ada Lovelace',
      email: 'ada@work.example',
      company: 'Engines',
      company_role: 'Analyst',
      pronet_url: 'https://pronet.example/ada',
    });
    expect(personDetailsOf({ name: null, company: 7 })).toEqual({});
    expect(personDetailsOf(undefined)).toEqual({});
  });
});
