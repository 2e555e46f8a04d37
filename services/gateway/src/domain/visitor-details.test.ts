import { tagVisitorDetails } from './visitor-details';

const visitor = {
  page_views: 3,
  sessions: 1,
  first_seen: '2026-11-25T10:00:00.000Z',
  last_seen: '2026-11-25T10:05:00.000Z',
  last_page: '/pricing',
  engaged_seconds: 40,
};

describe('details of a visitor seen by the tag', () => {
  it('when it is not identified, then only the page-view fields are answered', () => {
    expect(tagVisitorDetails(visitor)).toEqual(visitor);
  });

  it('when it is identified and enrichment knows the person, then the seven fields come first, absent ones omitted, then the page-view fields', () => {
    const identified = { ...visitor, identified_by: { method: 'identify', at: '2026-11-25T10:01:00.000Z' } };
    const details = tagVisitorDetails(identified, 'ann@example.com', {
      firstName: 'Ann',
      lastName: 'Lee',
      name: 'Ann Lee',
      email: 'ann@work.example',
      company: 'Acme',
      pronet_url: 'https://pronet.example/ann',
      page_views: 99,
    });
    expect(Object.keys(details)).toEqual([
      'firstName',
      'lastName',
      'name',
      'email',
      'company',
      'pronet_url',
      'page_views',
      'sessions',
      'first_seen',
      'last_seen',
      'last_page',
      'engaged_seconds',
      'identified_by',
    ]);
    expect(details).toMatchObject({ email: 'ann@work.example', page_views: 3, identified_by: identified.identified_by });
  });

  it('when it is identified and enrichment has nobody with that email, then the linked email is answered', () => {
    expect(tagVisitorDetails(visitor, 'ann@example.com', null)).toEqual({ email: 'ann@example.com', ...visitor });
  });

  it('when the identification has a confidence, then identified_by carries it', () => {
    const byForm = { ...visitor, identified_by: { method: 'form', at: '2026-11-25T10:01:00.000Z', confidence: 0.9 } };
    expect(tagVisitorDetails(byForm, 'ann@example.com', null).identified_by).toEqual({ method: 'form', at: '2026-11-25T10:01:00.000Z', confidence: 0.9 });
  });

  it('when an unidentified visitor was matched to a company by its address, then company is its name and the person fields are absent', () => {
    const byAddress = {
      ...visitor,
      company: { name: 'Acme', domain: 'acme.test' },
      identified_by: { method: 'ip_company', at: '2026-11-25T10:01:00.000Z', confidence: 0.5 },
    };
    expect(tagVisitorDetails(byAddress)).toEqual({ company: 'Acme', ...visitor, identified_by: byAddress.identified_by });
    expect(tagVisitorDetails({ ...visitor, company: 'Acme' })).toEqual({ company: 'Acme', ...visitor });
  });
});
