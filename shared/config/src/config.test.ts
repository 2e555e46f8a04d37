import { z } from 'zod';
import { baseEnv, internalTokenEnv, internalTokenRequiredInProduction, parseConfig, port } from './config';

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
