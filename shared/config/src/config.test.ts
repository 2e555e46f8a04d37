import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  baseEnv,
  DATABASE_ROLES,
  DEV_INTERNAL_TOKEN,
  groupIdEnv,
  serviceEnv,
  sessionTimeoutEnv,
  devInternalToken,
  internalTokenEnv,
  internalTokenEnvFor,
  internalTokenRequiredInProduction,
  internalTokensEnv,
  internalTokensRequiredInProduction,
  isDevInternalToken,
  parseConfig,
  port,
  secretRequiredInProduction,
} from './config';

const schema = z.object({ ...baseEnv, PORT: port(8080), ...internalTokenEnv }).refine(...internalTokenRequiredInProduction);

describe('parseConfig', () => {
  it('when the environment is empty, then the local defaults apply', () => {
    const config = parseConfig(schema, {});
    expect(config).toMatchObject({ PORT: 8080, KAFKA_BROKERS: ['127.0.0.1:9092'], LOG_LEVEL: 'info' });
  });

  it('when a variable is invalid, then start-up fails with a message naming it', () => {
    expect(() => parseConfig(schema, { PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => parseConfig(schema, { DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
  });

  it('when production runs on the development internal token, then it refuses to start', () => {
    expect(() => parseConfig(schema, { NODE_ENV: 'production' })).toThrow(/INTERNAL_TOKEN must be set in production/);
    expect(parseConfig(schema, { NODE_ENV: 'production', INTERNAL_TOKEN: 's'.repeat(32) }).INTERNAL_TOKEN).toHaveLength(32);
  });
});

describe('per-caller internal tokens', () => {
  const callee = z.object({ ...baseEnv, ...internalTokensEnv(['gateway', 'webhooks']) }).refine(...internalTokensRequiredInProduction);
  const sha = (t: string) => createHash('sha256').update(t).digest('hex');

  it("when nothing is set outside production, then each caller's derived development token is accepted, each a different one", () => {
    const { INTERNAL_TOKENS } = parseConfig(callee, {});
    expect(INTERNAL_TOKENS).toEqual({ gateway: sha(devInternalToken('gateway')), webhooks: sha(devInternalToken('webhooks')) });
    expect(devInternalToken('gateway')).not.toBe(devInternalToken('webhooks'));
  });

  it('when production runs without INTERNAL_TOKENS or with a development token in it, then it refuses to start', () => {
    expect(() => parseConfig(callee, { NODE_ENV: 'production' })).toThrow(/INTERNAL_TOKENS must be set in production/);
    expect(() =>
      parseConfig(callee, { NODE_ENV: 'production', INTERNAL_TOKENS: `gateway=${'g'.repeat(32)},webhooks=${devInternalToken('webhooks')}` }),
    ).toThrow(/INTERNAL_TOKENS must be set/);
    expect(() => parseConfig(callee, { NODE_ENV: 'production', INTERNAL_TOKENS: `gateway=sha256:${sha(DEV_INTERNAL_TOKEN)}` })).toThrow(
      /INTERNAL_TOKENS must be set/,
    );
    const parsed = parseConfig(callee, {
      NODE_ENV: 'production',
      INTERNAL_TOKENS: `gateway=${'g'.repeat(32)}, webhooks=sha256:${sha('w'.repeat(32)).toUpperCase()}`,
    });
    expect(parsed.INTERNAL_TOKENS).toEqual({ gateway: sha('g'.repeat(32)), webhooks: sha('w'.repeat(32)) });
  });

  it('when INTERNAL_TOKENS names a known caller this service does not accept, then that entry is left out', () => {
    const gatewayOnly = z.object({ ...baseEnv, ...internalTokensEnv(['gateway']) });
    expect(parseConfig(gatewayOnly, { INTERNAL_TOKENS: `gateway=${'g'.repeat(32)},webhooks=${'w'.repeat(32)}` }).INTERNAL_TOKENS).toEqual({
      gateway: sha('g'.repeat(32)),
    });
    expect(() => parseConfig(gatewayOnly, { INTERNAL_TOKENS: `webhooks=${'w'.repeat(32)}` })).toThrow(/no caller this service accepts/);
  });

  it('when INTERNAL_TOKENS is malformed, then start-up fails naming the entry but never a token', () => {
    const secret = 's'.repeat(32);
    for (const value of [
      `playbook=${secret}`,
      secret,
      `gateway=${secret},gateway=${'t'.repeat(32)}`,
      `gateway=${secret},webhooks=${secret}`,
      'gateway=short',
      'gateway=sha256:abc',
      '',
    ]) {
      let message = '';
      try {
        parseConfig(callee, { INTERNAL_TOKENS: value });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/INTERNAL_TOKENS/);
      expect(message).not.toContain(secret);
    }
  });

  it('when a caller other than the gateway runs production on its development token, then it refuses to start', () => {
    const caller = z.object({ ...baseEnv, ...internalTokenEnvFor('webhooks') }).refine(...internalTokenRequiredInProduction);
    expect(parseConfig(caller, {}).INTERNAL_TOKEN).toBe(devInternalToken('webhooks'));
    expect(() => parseConfig(caller, { NODE_ENV: 'production' })).toThrow(/INTERNAL_TOKEN must be set in production/);
    expect(() => parseConfig(caller, { NODE_ENV: 'production', INTERNAL_TOKEN: DEV_INTERNAL_TOKEN })).toThrow(/INTERNAL_TOKEN must be set in production/);
    expect(isDevInternalToken('x'.repeat(32))).toBe(false);
  });
});

describe('serviceEnv, groupIdEnv, sessionTimeoutEnv', () => {
  const schema = z.object({ ...serviceEnv('visitors'), GROUP_ID: groupIdEnv('glimpse-x'), SESSION_TIMEOUT_MS: sessionTimeoutEnv() });

  it("starts a service's schema: the shared variables, its own Postgres role and HOST on every interface by default", () => {
    const config = parseConfig(schema, {});
    expect(new URL(config.DATABASE_URL).username).toBe(DATABASE_ROLES.visitors);
    expect([config.HOST, config.LOG_LEVEL, config.GROUP_ID, config.SESSION_TIMEOUT_MS]).toEqual(['0.0.0.0', 'info', 'glimpse-x', 15_000]);
    expect(parseConfig(z.object(serviceEnv('enrichment', { host: '127.0.0.1' })), {}).HOST).toBe('127.0.0.1');
  });

  it("refuses an empty group id and a session shorter than Kafka's minimum", () => {
    expect(() => parseConfig(schema, { GROUP_ID: '' })).toThrow(/GROUP_ID/);
    expect(() => parseConfig(schema, { SESSION_TIMEOUT_MS: '5999' })).toThrow(/SESSION_TIMEOUT_MS/);
  });
});

describe('secretRequiredInProduction', () => {
  const secretSchema = z.object({ ...baseEnv, SECRET: z.string().default('dev-secret') }).refine(...secretRequiredInProduction('SECRET', 'dev-secret'));

  it('refuses the development default in production only, naming the variable', () => {
    expect(parseConfig(secretSchema, {}).SECRET).toBe('dev-secret');
    expect(() => parseConfig(secretSchema, { NODE_ENV: 'production' })).toThrow('SECRET: SECRET must be set in production');
    expect(parseConfig(secretSchema, { NODE_ENV: 'production', SECRET: 'a-secret-of-its-own' }).SECRET).toBe('a-secret-of-its-own');
  });
});
