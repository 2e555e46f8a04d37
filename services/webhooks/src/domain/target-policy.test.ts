import { AppError } from '@glimpse/errors';
import { checkTarget, literalAddress, parseTargetUrl, refusedAddress } from './target-policy';

const guarded = { blockPrivate: true, allowLoopback: false };

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
    const policy = { blockPrivate: true, allowLoopback: true };
    expect(refusedAddress('127.0.0.1', policy)).toBeNull();
    expect(refusedAddress('::1', policy)).toBeNull();
    expect(refusedAddress('10.0.0.1', policy)).toContain('private');
  });

  it('when the guard is off, then any address passes', () => {
    expect(refusedAddress('10.0.0.1', { blockPrivate: false, allowLoopback: false })).toBeNull();
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

  it('when a name resolves to any private address, then the target is refused', async () => {
    const resolve = async () => ['93.184.216.34', '10.0.0.5'];
    await expect(checkTarget(new URL('https://mixed.example/'), guarded, resolve)).rejects.toThrow(/non-public/);
    await expect(checkTarget(new URL('https://public.example/'), guarded, async () => ['93.184.216.34'])).resolves.toBeUndefined();
    await expect(checkTarget(new URL('https://nowhere.example/'), guarded, async () => { throw new Error('ENOTFOUND'); })).rejects.toThrow(/does not resolve/);
  });
});
