import { createReasonLabels, detectBot } from './bot-filter';

describe('bot filter', () => {
  it('when the user agent is a crawler, then it is a bot with the matched part as the reason', () => {
    expect(detectBot('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')?.reason).toMatch(/google/i);
    expect(detectBot('curl/8.4.0')).not.toBeNull();
    expect(detectBot(undefined)).toEqual({ reason: 'no user agent' });
  });

  it('when the user agent is a browser, then it is not a bot', () => {
    expect(detectBot('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36')).toBeNull();
  });

  it('when many distinct reasons are seen, then the labels stay bounded', () => {
    const label = createReasonLabels(2);
    expect(label('Googlebot/2.1')).toBe('googlebot');
    expect(label('curl/8')).toBe('curl');
    expect(label('something else')).toBe('other');
    expect(label('GOOGLEBOT/2.1')).toBe('googlebot');
  });
});
