import { mmdbRecordFields } from './mmdb-record.js';
import { ipinfoType, maxmindConnectionType, maxmindUserType } from './vendor-network-types.js';

describe("the vendors' network types", () => {
  it.each([
    ['business', 'business'],
    ['college', 'education'],
    ['school', 'education'],
    ['library', 'education'],
    ['government', 'government'],
    ['military', 'government'],
    ['residential', 'isp'],
    ['dialup', 'isp'],
    ['router', 'isp'],
    ['cafe', 'isp'],
    ['traveler', 'isp'],
    ['cellular', 'mobile'],
    ['hosting', 'hosting'],
    ['content_delivery_network', 'hosting'],
    ['consumer_privacy', 'hosting'],
    ['search_engine_spider', 'hosting'],
  ])('MaxMind user_type %s is %s', (word, type) => expect(maxmindUserType(word)).toBe(type));

  it.each([
    ['Cellular', 'mobile'],
    ['Cable/DSL', 'isp'],
    ['Dialup', 'isp'],
    ['Satellite', 'isp'],
    ['Corporate', 'business'],
  ])('MaxMind connection_type %s is %s', (word, type) => expect(maxmindConnectionType(word)).toBe(type));

  it('IPinfo types are ours; an unknown word says nothing', () => {
    for (const t of ['isp', 'business', 'education', 'hosting', 'government']) expect(ipinfoType(t)).toBe(t);
    expect(ipinfoType('Hosting')).toBe('hosting');
    expect(maxmindUserType('toString')).toBeNull();
    expect(maxmindConnectionType('cable/dsl')).toBeNull();
    expect(ipinfoType(3)).toBeNull();
  });
});

describe('a MaxMind DB record → row fields', () => {
  it("reads GeoLite2-ASN and DB-IP's ASN records", () => {
    expect(mmdbRecordFields({ autonomous_system_number: 15169, autonomous_system_organization: 'Google Inc.' })).toEqual({
      asn: 15169,
      name: 'Google Inc.',
      domain: null,
      type: null,
    });
  });

  it('prefers the organisation to the ISP, and the ISP to the AS; mobile codes make a mobile network', () => {
    expect(
      mmdbRecordFields({
        autonomous_system_number: 6167,
        autonomous_system_organization: 'CELLCO-PART',
        isp: 'Verizon Wireless',
        organization: 'Verizon Wireless Org',
        mobile_country_code: '310',
        mobile_network_code: '004',
      }),
    ).toEqual({ asn: 6167, name: 'Verizon Wireless Org', domain: null, type: 'mobile' });
    expect(mmdbRecordFields({ isp: 'WifiNetCom' })).toEqual({ asn: null, name: 'WifiNetCom', domain: null, type: null });
  });

  it("reads an Enterprise record's traits: user_type before connection_type", () => {
    const record = {
      city: { names: { en: 'Boxford' } },
      traits: { autonomous_system_number: 209, isp: 'Century Link', organization: 'Lariat Software', connection_type: 'Cable/DSL', user_type: 'government' },
    };
    expect(mmdbRecordFields(record)).toEqual({ asn: 209, name: 'Lariat Software', domain: null, type: 'government' });
    expect(mmdbRecordFields({ traits: { connection_type: 'Corporate' } })).toEqual({ asn: null, name: null, domain: null, type: 'business' });
  });

  it('reads IPinfo\'s layouts: asn "AS…" with name or as_name, and the asn and company objects', () => {
    expect(mmdbRecordFields({ asn: 'AS13335', name: 'Cloudflare, Inc.', domain: 'cloudflare.com', type: 'hosting' })).toEqual({
      asn: 13335,
      name: 'Cloudflare, Inc.',
      domain: 'cloudflare.com',
      type: 'hosting',
    });
    expect(mmdbRecordFields({ asn: 'AS15169', as_name: 'Google LLC', as_domain: 'google.com', country: 'US' })).toEqual({
      asn: 15169,
      name: 'Google LLC',
      domain: 'google.com',
      type: null,
    });
    expect(
      mmdbRecordFields({
        asn: { asn: 'AS7922', name: 'Comcast Cable Communications, LLC', domain: 'comcast.net', type: 'isp' },
        company: { name: 'Acme Corp', domain: 'acme.example', type: 'business' },
      }),
    ).toEqual({ asn: 7922, name: 'Acme Corp', domain: 'acme.example', type: 'business' });
  });

  it('gives null for a record with no asn, name or type, and an error for a bad value', () => {
    expect(mmdbRecordFields({ country: { iso_code: 'GB' }, city: { names: { en: 'London' } } })).toBeNull();
    expect(mmdbRecordFields({ domain: 'example.com' })).toBeNull();
    expect(mmdbRecordFields('text')).toBeNull();
    expect(mmdbRecordFields({ autonomous_system_number: 1, domain: 'not a domain' })).toEqual({ error: 'domain: not a domain name' });
  });
});
