import { DEV_ERASURE_KEY, loadConfig } from './config';

const TOKEN = { INTERNAL_TOKEN: 'a-production-internal-token-0123456789', INTERNAL_TOKENS: 'gateway=a-production-gateway-token-0123456789' };

describe('playbook configuration: the erasure secret', () => {
  it('when production runs without its own erasure secret, then it does not start', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...TOKEN })).toThrow(/PLAYBOOK_ERASURE_KEY must be set in production/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...TOKEN, PLAYBOOK_ERASURE_KEY: DEV_ERASURE_KEY })).toThrow(/PLAYBOOK_ERASURE_KEY/);
  });

  it('when the secret is shorter than 32 characters, then it is refused anywhere', () => {
    expect(() => loadConfig({ PLAYBOOK_ERASURE_KEY: 'too-short' })).toThrow(/PLAYBOOK_ERASURE_KEY/);
  });

  it('when production has a secret of its own, then it is used; elsewhere the development one is the default', () => {
    const key = 'a-production-erasure-secret-0123456789abcdef';
    expect(loadConfig({ NODE_ENV: 'production', ...TOKEN, PLAYBOOK_ERASURE_KEY: key }).PLAYBOOK_ERASURE_KEY).toBe(key);
    expect(loadConfig({}).PLAYBOOK_ERASURE_KEY).toBe(DEV_ERASURE_KEY);
  });
});
