import { createHash } from 'node:crypto';
import { normalizeRecord } from './enriched-record.js';
import { identitiesOf, normalizeEmail, normalizePhone, normalizePronetUrl, normalizeSha256 } from './identifiers.js';
import { seededRandom } from '../demo/seeded-random.js';

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
    for (const url of [
      'https://www.pronet.example/in/jane',
      'http://pronet.example/in/Jane/',
      ' pronet.example/in/jane?trk=x#top ',
      'HTTPS://WWW.PRONET.EXAMPLE/in/jane//',
    ]) {
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

/**
 * normalizePronetUrl as it was before the linear scans, kept here only as the reference the linear version
 * must agree with. Its last two expressions backtrack quadratically: call it on short input only.
 */
function legacyNormalizePronetUrl(input: string | null | undefined): string | null {
  if (typeof input !== 'string' || input.length > 2048) return null;
  const value = input
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '') // eslint-disable-line regexp/no-super-linear-move -- the old behaviour, on purpose
    .replace(/\/+$/, ''); // eslint-disable-line regexp/no-super-linear-move -- the old behaviour, on purpose
  return /^[^/\s]+\.[^/\s]+\/\S+$/.test(value) ? value : null; // eslint-disable-line regexp/no-super-linear-backtracking -- the old behaviour, on purpose
}

describe('normalizePronetUrl without backtracking', () => {
  const ordinary = [
    'https://www.pronet.example/in/jane',
    'http://pronet.example/in/Jane/',
    ' pronet.example/in/jane?trk=x#top ',
    'HTTPS://WWW.PRONET.EXAMPLE/in/jane//',
    'https://pronet.example/in/jane-doe-1b2c3d/?originalSubdomain=uk',
    'https://uk.pronet.example/in/j%C3%A9r%C3%B4me#about',
    'pronet.example/company/acme-corp/',
    'www.pronet.example/in/ada-l?utm=x y',
    'ftp+x.y://pronet.example/in/a',
    'pronet.example//in//a//',
    'https://pronet.example/?q=/in/jane',
    'https://pronet.example#/in/jane',
    '..a/b',
    '.a/b',
    'a./b',
    'a.b/',
    'a.b/c',
    'a.b/c d',
    'a.b/c\nd',
    'a.b/c?x\ny',
    'a.b/c\n?x',
    'a\tb.c/d',
    'a.b/c?x\u2028y',
    'a.b/c\u00a0',
    '',
    '   ',
    'jane',
    'https://pronet.example/',
    'pronet.example',
    'a b/c',
    'https://',
    'WWW.',
    '?#',
  ];

  it('when the input is an ordinary or edge-case profile URL, then it gives what the regex version gave', () => {
    for (const url of ordinary) expect([url, normalizePronetUrl(url)]).toEqual([url, legacyNormalizePronetUrl(url)]);
  });

  it('when the input is any of 20,000 generated strings of URL characters, then it gives what the regex version gave', () => {
    const random = seededRandom(21);
    const pieces = [
      'a',
      'B',
      'z',
      '0',
      '.',
      '.',
      '/',
      '/',
      '//',
      '?',
      '#',
      ' ',
      '\t',
      '\n',
      '\r',
      '\u2028',
      '\u00a0',
      'www.',
      'https://',
      'h:',
      ':',
      '-',
      '+',
      '%2f',
      'İ',
      'pronet.example/in/',
    ];
    const differing: string[] = [];
    let keys = 0;
    for (let i = 0; i < 20_000; i++) {
      const url = Array.from({ length: random.int(0, 12) }, () => random.pick(pieces)).join('');
      const key = normalizePronetUrl(url);
      if (key !== legacyNormalizePronetUrl(url)) differing.push(url);
      if (key !== null) keys += 1;
    }
    expect(differing).toEqual([]);
    // Enough of them are profile keys (not only refusals) for the comparison to mean something.
    expect(keys).toBeGreaterThan(1000);
  });

  it('when the input is 2 KB of slashes, dots or query marks, then it is answered in linear time', () => {
    // A behavioural bound, not a benchmark: the regex version took about 18 ms per call on the
    // first of these; 100 calls of a linear scan over 2 KB stay far below a second on any machine.
    const inputs = [
      'a' + '/'.repeat(2046) + 'x',
      'a.'.repeat(1023) + ' ',
      'a' + '.'.repeat(2040) + ' /x',
      'a.b/c' + '?\n'.repeat(1000),
      'pronet.example/in/' + '/'.repeat(2000) + ' ',
    ];
    const started = performance.now();
    for (let i = 0; i < 100; i++) for (const input of inputs) normalizePronetUrl(input);
    expect(performance.now() - started).toBeLessThan(1000);
    for (const input of inputs) expect(normalizePronetUrl(input)).toBe(legacyNormalizePronetUrl(input));
  });
});
