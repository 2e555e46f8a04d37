import { AppError } from '@glimpse/errors';
import { checkTarget, literalAddress, NAME_REFUSED, parseTargetUrl, refusedAddress, refusedScheme } from './target-policy';

const guarded = { blockPrivate: true, allowLoopback: false, requireHttps: false };

describe('webhook target policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('when the guard is on, then %s is refused as %s', (address, range) => {
    expect(refusedAddress(address, guarded)).toContain(range);
  });

  it('when the guard is on, then public unicast addresses are allowed', () => {
    expect(refusedAddress('93.184.216.34', guarded)).toBeNull();
    expect(refusedAddress('2606:2800:220:1:248:1893:25c8:1946', guarded)).toBeNull();
  });

  it('when loopback is allowed explicitly, then loopback passes but other private ranges do not', () => {
    const policy = { blockPrivate: true, allowLoopback: true, requireHttps: false };
    expect(refusedAddress('127.0.0.1', policy)).toBeNull();
    expect(refusedAddress('::1', policy)).toBeNull();
    expect(refusedAddress('10.0.0.1', policy)).toContain('private');
  });

  it('when the guard is off, then any address passes', () => {
    expect(refusedAddress('10.0.0.1', { blockPrivate: false, allowLoopback: false, requireHttps: false })).toBeNull();
  });

  it.each(['ftp://example.com/x', 'not a url', 'https://user:pw@example.com/', 'https://example.com/#frag', `https://example.com/${'a'.repeat(2100)}`])(
    'when the url is %s, then it is refused',
    (url) => {
      expect(() => parseTargetUrl(url)).toThrow(AppError);
    },
  );

  it('when a host is an IP literal, then it is checked without resolving', () => {
    expect(literalAddress(new URL('http://[::1]:8080/'))).toBe('::1');
    expect(literalAddress(new URL('http://127.0.0.1/'))).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://example.com/'))).toBeNull();
  });

  it('when a name resolves to any private address, to nothing, or not at all, then it is refused in the same words, naming no address', async () => {
    const refusal = async (resolve: () => Promise<string[]>) =>
      (await checkTarget(new URL('https://name.example/'), guarded, resolve).catch((e: AppError) => e))?.message;
    const answers = await Promise.all([
      refusal(async () => ['93.184.216.34', '10.0.0.5']),
      refusal(async () => ['169.254.169.254']),
      refusal(async () => ['fd00::1']),
      refusal(async () => []),
      refusal(async () => {
        throw Object.assign(new Error('queryA ENOTFOUND name.example'), { code: 'ENOTFOUND' });
      }),
    ]);
    expect(answers).toEqual(Array(5).fill(NAME_REFUSED));
    for (const a of answers) expect(a).not.toMatch(/\d\.\d|::|private|linkLocal|uniqueLocal/);
    await expect(checkTarget(new URL('https://public.example/'), guarded, async () => ['93.184.216.34'])).resolves.toBeUndefined();
  });

  it('when the resolver does not answer in time, then the 400 says to try again', async () => {
    const timedOut = async () => {
      throw Object.assign(new Error('no answer'), { code: 'ETIMEOUT' });
    };
    await expect(checkTarget(new URL('https://slow.example/'), guarded, timedOut)).rejects.toThrow(/did not resolve in time/);
  });

  it('when an IP literal is refused, then the refusal names the address the caller wrote', async () => {
    await expect(checkTarget(new URL('http://10.0.0.1/x'), guarded, async () => [])).rejects.toThrow(/10\.0\.0\.1 is a private address/);
  });

  describe('https only (production)', () => {
    const production = { requireHttps: true, allowLoopback: false };

    it('when http is required off, then http and https are both accepted', () => {
      expect(parseTargetUrl('http://hooks.example/x').protocol).toBe('http:');
      expect(parseTargetUrl('http://hooks.example/x', { requireHttps: false, allowLoopback: false }).protocol).toBe('http:');
    });

    it('when https is required, then an http URL is refused with a 400 saying so, and https passes', () => {
      expect(() => parseTargetUrl('http://hooks.example/x', production)).toThrow('url must use https');
      expect(() => parseTargetUrl('ftp://hooks.example/x', production)).toThrow('url must use https');
      expect(parseTargetUrl('https://hooks.example/x', production).protocol).toBe('https:');
    });

    it('when loopback targets are allowed, then http to a loopback host stays allowed, and to nothing else', () => {
      const local = { requireHttps: true, allowLoopback: true };
      for (const url of ['http://127.0.0.1:9/x', 'http://[::1]:9/x', 'http://localhost:9/x']) expect(refusedScheme(new URL(url), local)).toBeNull();
      for (const url of ['http://10.0.0.1/x', 'http://hooks.example/x', 'http://127.0.0.1.nip.io/x'])
        expect(refusedScheme(new URL(url), local)).toBe('url must use https');
    });
  });
});
