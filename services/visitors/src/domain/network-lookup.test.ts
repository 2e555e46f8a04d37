import type { NetworkType } from '@glimpse/validation';
import { createNetworkLookup, type NetworkRecord } from './network-lookup.js';
import { buildRangeIndex } from './range-index.js';

const rec = (name: string, type: NetworkType | null, asn: number | null = null, domain: string | null = null): NetworkRecord => ({ name, type, asn, domain });
const dataset = (name: string, precedence: number, ranges: [string, string, NetworkRecord][]) => ({
  name,
  precedence,
  index: buildRangeIndex(ranges.map(([first, last, record]) => ({ first, last, record }))),
});
const classify = (org: { name?: string | null }): NetworkType => (/cable|telecom/i.test(org.name ?? '') ? 'isp' : 'business');

describe('createNetworkLookup', () => {
  const vendor = dataset('vendor', 100, [['198.51.100.0', '198.51.100.255', rec('Acme Corp', 'business', 64500, 'acme.example')]]);
  const asnFile = dataset('asn', 10, [
    ['198.51.0.0', '198.51.255.255', rec('Example Cable Communications', null, 64501)],
    ['203.0.113.0', '203.0.113.255', rec('Widgets Ltd', null, 64502)],
  ]);

  it('names the company of a business range, with its network and the location', () => {
    const lookup = createNetworkLookup({
      datasets: [asnFile, vendor],
      classify,
      locate: () => ({ country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' }),
    });
    expect(lookup.lookup('198.51.100.7')).toEqual({
      network: { name: 'Acme Corp', type: 'business', asn: 64500, domain: 'acme.example' },
      company: { name: 'Acme Corp', domain: 'acme.example' },
      location: { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' },
    });
  });

  it('gives a home network its name and type but no company', () => {
    const lookup = createNetworkLookup({ datasets: [vendor, asnFile], classify });
    expect(lookup.lookup('198.51.7.7')).toEqual({
      network: { name: 'Example Cable Communications', type: 'isp', asn: 64501, domain: null },
      company: null,
      location: null,
    });
  });

  it('takes the dataset of the higher precedence where two hold an address', () => {
    const low = createNetworkLookup({
      datasets: [dataset('vendor', 1, [['198.51.100.0', '198.51.100.255', rec('Acme Corp', 'business')]]), asnFile],
      classify,
    });
    expect(low.lookup('198.51.100.7').network?.name).toBe('Example Cable Communications');
  });

  it('lets an override of the AS or the organisation win over the file and the classifier', () => {
    const byAsn = createNetworkLookup({ datasets: [asnFile], classify, overrides: { asn: new Map([[64502, 'hosting']]), org: new Map() } });
    expect(byAsn.lookup('203.0.113.1')).toMatchObject({ network: { type: 'hosting' }, company: null });
    const byOrg = createNetworkLookup({
      datasets: [asnFile],
      classify,
      overrides: { asn: new Map(), org: new Map([['example cable communications', 'business']]) },
    });
    expect(byOrg.lookup('198.51.7.7')).toMatchObject({ network: { type: 'business' }, company: { name: 'Example Cable Communications' } });
  });

  it('answers nothing for an address no dataset holds', () => {
    expect(createNetworkLookup({ datasets: [vendor], classify }).lookup('192.0.2.1')).toEqual({ network: null, company: null, location: null });
  });
});
