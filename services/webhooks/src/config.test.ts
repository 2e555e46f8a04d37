import { DEV_WEBHOOKS_SECRET_KEY, loadConfig } from './config';

const TOKEN = { INTERNAL_TOKEN: 'a-production-internal-token-0123456789', INTERNAL_TOKENS: 'gateway=a-production-gateway-token-0123456789' };
const KEY = { WEBHOOKS_SECRET_KEY: 'a-production-webhooks-secret-key-0123456789' };

describe('webhooks configuration', () => {
  it('when running in production, then private targets are refused without being asked', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...TOKEN, ...KEY }).WEBHOOKS_BLOCK_PRIVATE_TARGETS).toBe(true);
  });

  it('when production is told to allow private targets, then it does not start', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOKS_BLOCK_PRIVATE_TARGETS: 'false', ...TOKEN, ...KEY })).toThrow(/WEBHOOKS_BLOCK_PRIVATE_TARGETS/);
  });

  it('outside production, then the guard is off unless set, and loopback needs its own setting', () => {
    expect(loadConfig({}).WEBHOOKS_BLOCK_PRIVATE_TARGETS).toBe(false);
    const test = loadConfig({ NODE_ENV: 'test', WEBHOOKS_BLOCK_PRIVATE_TARGETS: 'true', WEBHOOKS_ALLOW_LOOPBACK: 'true' });
    expect([test.WEBHOOKS_BLOCK_PRIVATE_TARGETS, test.WEBHOOKS_ALLOW_LOOPBACK]).toEqual([true, true]);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_LOOPBACK: 'yes' })).toThrow(/WEBHOOKS_ALLOW_LOOPBACK/);
  });

  it('when running in production, then http targets are refused without being asked, and cannot be allowed', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...TOKEN, ...KEY }).WEBHOOKS_REQUIRE_HTTPS).toBe(true);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOKS_REQUIRE_HTTPS: 'false', ...TOKEN, ...KEY })).toThrow(/WEBHOOKS_REQUIRE_HTTPS/);
    expect(loadConfig({}).WEBHOOKS_REQUIRE_HTTPS).toBe(false);
    expect(loadConfig({ WEBHOOKS_REQUIRE_HTTPS: 'true' }).WEBHOOKS_REQUIRE_HTTPS).toBe(true);
  });

  it('when production runs on the development secret key, then it does not start', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...TOKEN })).toThrow(/WEBHOOKS_SECRET_KEY must be set in production/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...TOKEN, WEBHOOKS_SECRET_KEY: 'short' })).toThrow(/at least 32 characters/);
    const c = loadConfig({ NODE_ENV: 'production', ...TOKEN, ...KEY, WEBHOOKS_SECRET_KEY_PREVIOUS: ' a-previous-key-of-32-characters-at-least , ' });
    expect(c.WEBHOOKS_SECRET_KEY_PREVIOUS).toEqual(['a-previous-key-of-32-characters-at-least']);
    expect(loadConfig({}).WEBHOOKS_SECRET_KEY).toBe(DEV_WEBHOOKS_SECRET_KEY);
  });

  it('by default, one account holds at most 4 of the 16 delivery slots and one endpoint 2; the caps nest', () => {
    const c = loadConfig({});
    expect([c.WEBHOOKS_CONCURRENCY, c.WEBHOOKS_ACCOUNT_CONCURRENCY, c.WEBHOOKS_ENDPOINT_CONCURRENCY]).toEqual([16, 4, 2]);
    expect(() => loadConfig({ WEBHOOKS_ENDPOINT_CONCURRENCY: '5' })).toThrow(/WEBHOOKS_ACCOUNT_CONCURRENCY/);
    expect(() => loadConfig({ WEBHOOKS_ACCOUNT_CONCURRENCY: '17' })).toThrow(/WEBHOOKS_ACCOUNT_CONCURRENCY/);
  });

  it('by default, a name has 2 s to resolve, from the system name servers', () => {
    const c = loadConfig({});
    expect([c.WEBHOOKS_DNS_TIMEOUT_MS, c.WEBHOOKS_DNS_SERVERS]).toEqual([2000, []]);
    expect(loadConfig({ WEBHOOKS_DNS_SERVERS: '10.0.0.10, 10.0.0.11:5353' }).WEBHOOKS_DNS_SERVERS).toEqual(['10.0.0.10', '10.0.0.11:5353']);
  });

  it('by default, retries last 24 h and an endpoint is disabled after a day of failures', () => {
    const c = loadConfig({});
    expect([c.WEBHOOKS_RETRY_WINDOW_MS, c.WEBHOOKS_DISABLE_AFTER_MS, c.WEBHOOKS_TIMEOUT_MS]).toEqual([86_400_000, 86_400_000, 10_000]);
  });

  it('by default, Slack messages link the local console and read visitors.segments in their own group; a console URL that is not one is refused', () => {
    const c = loadConfig({});
    expect([c.WEBHOOKS_CONSOLE_URL, c.WEBHOOKS_SEGMENTS_GROUP_ID]).toEqual(['http://127.0.0.1:8080/console/', 'glimpse-webhooks-segments']);
    expect(loadConfig({ WEBHOOKS_CONSOLE_URL: 'https://app.glimpse.example/console/' }).WEBHOOKS_CONSOLE_URL).toBe('https://app.glimpse.example/console/');
    expect(() => loadConfig({ WEBHOOKS_CONSOLE_URL: 'console' })).toThrow(/WEBHOOKS_CONSOLE_URL/);
  });
});
