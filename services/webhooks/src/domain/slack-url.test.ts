import { retryAfterMs } from '../delivery/slack-sender';
import { maskSlackUrl, parseSlackUrl } from './slack-url';

const PRODUCTION = { requireHttps: true, allowLoopback: false };
const TESTS = { requireHttps: false, allowLoopback: true };
const HOOK = 'https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx';

describe('Slack endpoint URLs', () => {
  it('when the URL is a Slack incoming webhook, then it is accepted as it is', () => {
    expect(parseSlackUrl(HOOK, PRODUCTION).toString()).toBe(HOOK);
  });

  it.each([
    ['http://hooks.slack.com/services/T1/B2/c3'],
    ['https://hooks.slack.com.evil.example/services/T1/B2/c3'],
    ['https://evil.example/services/T1/B2/c3'],
    ['https://hooks.slack.com/workflows/T1/B2/c3'],
    ['https://hooks.slack.com/services/T1/B2'],
    ['https://hooks.slack.com:8443/services/T1/B2/c3'],
    ['https://user:pw@hooks.slack.com/services/T1/B2/c3'],
    ['http://127.0.0.1:9999/hooks'],
    ['not a url'],
  ])('when the URL is %s, then it is refused without repeating it', (url) => {
    expect(() => parseSlackUrl(url, PRODUCTION)).toThrow('url must be a Slack incoming-webhook URL (https://hooks.slack.com/services/…)');
  });

  it('when local receivers are allowed (the tests), then a loopback URL stands in for Slack, and no other host does', () => {
    expect(parseSlackUrl('http://127.0.0.1:9999/slack/T1', TESTS).toString()).toBe('http://127.0.0.1:9999/slack/T1');
    expect(() => parseSlackUrl('http://example.com/slack', TESTS)).toThrow('Slack incoming-webhook URL');
  });

  it('when a Slack URL is shown, then only its origin and last four characters are', () => {
    expect(maskSlackUrl(HOOK)).toBe('https://hooks.slack.com/…uvwx');
    expect(maskSlackUrl(HOOK)).not.toContain('T0123ABCD');
    expect(maskSlackUrl('http://127.0.0.1:9999/s')).toBe('http://127.0.0.1:9999/…');
  });

  it('when Slack answers 429, then Retry-After is read in seconds or as a date, and nothing else', () => {
    const now = Date.parse('2026-11-28T09:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 30 ', now)).toBe(30_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 09:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
