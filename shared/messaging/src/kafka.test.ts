import { ConfigError, baseEnv, parseConfig, z } from '@glimpse/config';
import { kafkaSecurity } from './kafka';

const parse = (env: Record<string, string>) => parseConfig(z.object(baseEnv), env);

describe('kafkaSecurity', () => {
  it('is plaintext without settings', () => {
    expect(kafkaSecurity(parse({}))).toEqual({ ssl: false });
  });

  it('turns on TLS and SCRAM from the environment the Kubernetes manifests set', () => {
    const config = parse({ KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'glimpse-gateway', KAFKA_SASL_PASSWORD: 'p4ss' });
    expect(kafkaSecurity(config)).toEqual({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'glimpse-gateway', password: 'p4ss' } });
  });

  it('refuses a mechanism without its credentials, and unknown values, at start-up', () => {
    expect(() => kafkaSecurity(parse({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u' }))).toThrow(ConfigError);
    expect(() => parse({ KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(/KAFKA_SASL_MECHANISM/);
    expect(() => parse({ KAFKA_SSL: 'yes' })).toThrow(/KAFKA_SSL/);
  });
});
