// The targets' resolver against a real name server on a local UDP port (test/support/dns-server):
// answers of both families, NXDOMAIN, and a server that never answers, which must end in a clean
// ETIMEOUT within the configured time, not hang a delivery.
import { createResolver, ResolveError } from './resolver';
import { startDnsServer, type DnsServer } from '../../test/support/dns-server';

let dns: DnsServer;

beforeAll(async () => {
  dns = await startDnsServer({ 'hooks.glimpse.test': ['203.0.113.7', '2001:db8::7'], 'v4only.glimpse.test': ['198.51.100.1'] });
});

afterAll(() => dns.close());

afterEach(() => dns.silent(false));

describe('the targets resolver', () => {
  it('when a name has A and AAAA records, then both families are answered by the name server asked', async () => {
    const resolver = createResolver({ timeoutMs: 2000, servers: [dns.address] });
    expect((await resolver.resolve('hooks.glimpse.test')).sort()).toEqual(['2001:db8::7', '203.0.113.7']);
    expect(dns.queries).toEqual(expect.arrayContaining(['hooks.glimpse.test/A', 'hooks.glimpse.test/AAAA']));
    expect(await resolver.resolve('v4only.glimpse.test')).toEqual(['198.51.100.1']);
  });

  it('when a name does not exist, then ENOTFOUND', async () => {
    const resolver = createResolver({ timeoutMs: 2000, servers: [dns.address] });
    await expect(resolver.resolve('nowhere.glimpse.test')).rejects.toMatchObject({ name: 'ResolveError', code: 'ENOTFOUND' });
  });

  it('when the name server never answers, then the lookup fails with ETIMEOUT within its time', async () => {
    dns.silent(true);
    const resolver = createResolver({ timeoutMs: 600, servers: [dns.address] });
    const started = Date.now();
    const err = await resolver.resolve('hooks.glimpse.test').catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(ResolveError);
    expect(err).toMatchObject({ code: 'ETIMEOUT' });
    // The deadline is exact up to timer slack; 400 ms of slack for a loaded 2-core machine.
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(1000);
  });

  it('when the host is an IP literal or localhost, then no name server is asked', async () => {
    dns.silent(true);
    const resolver = createResolver({ timeoutMs: 200, servers: [dns.address] });
    const before = dns.queries.length;
    expect(await resolver.resolve('203.0.113.9')).toEqual(['203.0.113.9']);
    expect(await resolver.resolve('[2001:db8::1]')).toEqual(['2001:db8::1']);
    expect(await resolver.resolve('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(await resolver.resolve('api.localhost')).toEqual(['127.0.0.1', '::1']);
    expect(dns.queries.length).toBe(before);
  });
});
