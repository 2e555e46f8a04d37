import { createHash } from 'node:crypto';
import { normalizeRecord } from './enriched-record.js';
import { identitiesOf, normalizeEmail, normalizePhone, normalizePronetUrl, normalizeSha256 } from './identifiers.js';

describe('normalizeEmail', () => {
  it('when an email has spaces and capitals, then it is trimmed and lower-cased', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com');
  });

  it('when the text is not an email, then the result is null', () => {
    for (const input of ['', 'ada', 'ada@', '@example.com', 'ada@example', 'a b@example.com', null, undefined]) {
      expect(normalizeEmail(input)).toBeNull();
    }
  });

  it('when the email is longer than 254 characters, then the result is null', () => {
    expect(normalizeEmail(`${'a'.repeat(250)}@example.com`)).toBeNull();
  });
});

describe('normalizePhone', () => {
  it('when a US number is written in different ways, then each gives the same E.164 under region US', () => {
    const forms = ['+1 (415) 555-0134', '415.555.0134', '+14155550134', '(415) 555-0134', '415-555-0134', '+1 415 555 0134'];
    expect(new Set(forms.map((form) => normalizePhone(form, 'US')))).toEqual(new Set(['+14155550134']));
  });

  it('when the region is given in lower case, then it is still used', () => {
    expect(normalizePhone('415.555.0134', 'us')).toBe('+14155550134');
  });

  it('when a number carries its country code, then the region does not matter', () => {
    expect(normalizePhone('+44 20 7946 0958', 'US')).toBe('+442079460958');
    expect(normalizePhone('+1 415 555 0134')).toBe('+14155550134');
  });

  it('when a number has no country code and no region is given, then the result is null', () => {
    expect(normalizePhone('415.555.0134')).toBeNull();
    expect(normalizePhone('415.555.0134', 'not-a-region')).toBeNull();
  });

  it('when the text is not a valid phone number, then the result is null', () => {
    for (const input of ['hello', '123', '415555013', '+1 (415) 555-0134-9999-1234', '', null, undefined]) {
      expect(normalizePhone(input, 'US')).toBeNull();
    }
  });

  it('when a number has an extension, then the line alone identifies it', () => {
    expect(normalizePhone('+1 415 555 0134 ext. 22', 'US')).toBe('+14155550134');
  });
});

describe('identitiesOf', () => {
  it('when a record has emails and phones in many places, then each is listed once, normalized, emails first', () => {
    const record = normalizeRecord({
      profile: { email: 'Ada@Acme.example' },
      traits: {
        email: 'ada@acme.example',
        work_email: ' ADA@ACME.EXAMPLE ',
        recommended_personal_email: 'ada.l@example.com',
        emails: [{ address: 'ada.l@example.com', type: 'personal' }, { address: 'ada@old-job.example', type: 'professional' }, { address: 'not-an-email' }],
        mobile_phone: '(415) 555-0134',
        phone_numbers: ['+14155550134', '212.555.0100', 'garbage'],
      },
      company: { phone_numbers: ['+1 303 555 0199'] },
      social: { pronet: { url: 'https://www.PRONET.example/in/Ada-L/?utm=x' } },
    });
    const sha = (e: string) => createHash('sha256').update(e).digest('hex');

    expect(identitiesOf(record, 'US')).toEqual([
      { kind: 'email', value: 'ada@acme.example' },
      { kind: 'email', value: 'ada.l@example.com' },
      { kind: 'email', value: 'ada@old-job.example' },
      { kind: 'phone', value: '+14155550134' },
      { kind: 'phone', value: '+12125550100' },
      { kind: 'email_sha256', value: sha('ada@acme.example') },
      { kind: 'email_sha256', value: sha('ada.l@example.com') },
      { kind: 'email_sha256', value: sha('ada@old-job.example') },
      { kind: 'pronet_url', value: 'pronet.example/in/ada-l' },
    ]);
  });

  it('when a record has no contact data, then it has no identities', () => {
    expect(identitiesOf(normalizeRecord({}), 'US')).toEqual([]);
  });
});

describe('normalizePronetUrl and normalizeSha256', () => {
  it('when a profile URL is written in any of its usual forms, then it normalizes to one key', () => {
    for (const url of ['https://www.pronet.example/in/jane', 'http://pronet.example/in/Jane/', ' pronet.example/in/jane?trk=x#top ', 'HTTPS://WWW.PRONET.EXAMPLE/in/jane//']) {
      expect(normalizePronetUrl(url)).toBe('pronet.example/in/jane');
    }
  });

  it('when it is no URL of a profile, then it is null', () => {
    for (const url of ['', 'jane', 'https://pronet.example/', 'pronet.example', 'a b/c']) expect(normalizePronetUrl(url)).toBeNull();
  });

  it('when a digest is 64 hex characters, then it is lower-cased; otherwise null', () => {
    expect(normalizeSha256(' ' + 'AB'.repeat(32) + ' ')).toBe('ab'.repeat(32));
    expect(normalizeSha256('ab'.repeat(31))).toBeNull();
    expect(normalizeSha256('zz'.repeat(32))).toBeNull();
  });
});
