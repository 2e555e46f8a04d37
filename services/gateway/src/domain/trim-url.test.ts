import { trimPageUrl, trimPath, trimReferrer } from './trim-url';

describe('trimming what a page view says of its address', () => {
  it('when a URL has a fragment and query parameters, then only the utm_ ones and the allowed keys are kept, in order, and never the fragment', () => {
    expect(trimPageUrl('https://shop.test/reset?token=s3cret&utm_source=news&page=2&ref=x#access_token=abc', ['page'])).toBe(
      'https://shop.test/reset?utm_source=news&page=2',
    );
    expect(trimPageUrl('https://shop.test/a?page=1&page=2', ['page'])).toBe('https://shop.test/a?page=1&page=2');
  });

  it('when a site allows no query keys, then a URL keeps its origin, path and UTM only', () => {
    expect(trimPageUrl('https://shop.test/pricing?ref=ad#top', [])).toBe('https://shop.test/pricing');
    expect(trimPageUrl('https://shop.test/?utm_campaign=fall&code=123', [])).toBe('https://shop.test/?utm_campaign=fall');
  });

  it('when the address is no http(s) URL, then nothing is kept', () => {
    expect(trimPageUrl('javascript:alert(1)', [])).toBeUndefined();
    expect(trimPageUrl('not a url', ['a'])).toBeUndefined();
    expect(trimReferrer('')).toBeUndefined();
    expect(trimReferrer('android-app://com.example/')).toBeUndefined();
  });

  it('when a referrer has a query or fragment, then only its origin and path are kept', () => {
    expect(trimReferrer('https://search.test/q?q=my+email%40x.com&utm_source=a#frag')).toBe('https://search.test/q');
    expect(trimReferrer('https://user:pw@search.test:8443/')).toBe('https://search.test:8443/');
  });

  it('when a path carries a query or fragment, then it is cut before them', () => {
    expect(trimPath('/reset?token=abc')).toBe('/reset');
    expect(trimPath('/a#b?c')).toBe('/a');
    expect(trimPath('/plain')).toBe('/plain');
    expect(trimPath('?x')).toBe('/');
  });
});
