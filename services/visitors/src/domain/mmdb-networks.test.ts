// The search-tree walk on MaxMind's own test databases (test/fixtures/ip-data, from maxmind/MaxMind-DB;
// the known answers are that repository's source-data/*.json).
import fs from 'node:fs';
import path from 'node:path';
import { parseAddress } from './ip-address.js';
import { addressValue, formatAddress } from './ip-bounds.js';
import { mmdbRows } from './ip-dataset-rows.js';
import { mmdbRecordFields } from './mmdb-record.js';
import { openMmdb, type MmdbNetwork } from './mmdb-networks.js';

const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures', 'ip-data');
const open = (name: string) => openMmdb(fs.readFileSync(path.join(FIXTURES, `${name}.mmdb`)));
const cidr = (n: MmdbNetwork) => `${formatAddress(n.family, n.first)}/${n.prefix}`;
const inside = (n: MmdbNetwork, prefix: string) => {
  const [address, bits] = prefix.split('/');
  const base = addressValue(parseAddress(address!)!);
  const host = (1n << BigInt(128 - Number(bits))) - 1n;
  return n.family === 6 && n.first >= base && n.last <= (base | host);
};

describe('walking a MaxMind DB search tree', () => {
  it.each([
    ['GeoLite2-ASN-Test', 412, 182],
    ['GeoIP2-ISP-Test', 2129, 1899],
    ['GeoIP2-Connection-Type-Test', 25, 24],
    ['GeoIP2-Enterprise-Test', 32, 28],
    ['GeoIP2-City-Test', 250, 20],
  ])('%s: every network once (%i, %i of them IPv4), each answered with its own record by a lookup at both ends', (name, count, ipv4) => {
    const file = open(name);
    const networks = [...file.networks()];
    expect(networks).toHaveLength(count);
    expect(networks.filter((n) => n.family === 4)).toHaveLength(ipv4);
    for (const n of networks) {
      const record = JSON.stringify(file.record(n.pointer));
      expect([JSON.stringify(file.lookup(formatAddress(n.family, n.first))), JSON.stringify(file.lookup(formatAddress(n.family, n.last)))]).toEqual([
        record,
        record,
      ]);
    }
  });

  it('gives the IPv4 space once, as IPv4: nothing under ::/96, ::ffff:0:0/96 or 2002::/16, and in address order', () => {
    const networks = [...open('GeoIP2-ISP-Test').networks()];
    for (const alias of ['::/96', '::ffff:0:0/96', '2002::/16']) expect(networks.filter((n) => inside(n, alias))).toEqual([]);
    const ordered = networks.every(
      (n, i) => i === 0 || networks[i - 1]!.family < n.family || (networks[i - 1]!.family === n.family && networks[i - 1]!.last < n.first),
    );
    expect(ordered).toBe(true);
  });

  it('finds the networks source-data/GeoLite2-ASN-Test.json lists, IPv4 and IPv6', () => {
    const file = open('GeoLite2-ASN-Test');
    const byCidr = new Map([...file.networks()].map((n) => [cidr(n), file.record(n.pointer)]));
    expect(byCidr.get('1.0.0.0/24')).toEqual({ autonomous_system_number: 15169, autonomous_system_organization: 'Google Inc.' });
    expect(byCidr.get('1.128.0.0/11')).toEqual({ autonomous_system_number: 1221, autonomous_system_organization: 'Telstra Pty Ltd' });
    expect(byCidr.get('12.81.96.0/19')).toEqual({ autonomous_system_number: 7018 });
    expect(byCidr.get('2600:6000:0:0:0:0:0:0/20')).toEqual({ autonomous_system_number: 237, autonomous_system_organization: 'Merit Network Inc.' });
  });
});

describe('a MaxMind DB file → rows', () => {
  const rowsOf = (name: string) => [...mmdbRows(open(name), mmdbRecordFields)];
  const rows = (name: string) => rowsOf(name).flatMap((o) => ('row' in o ? [o.row] : []));

  it('merges adjacent networks with the same fields into one row (GeoLite2-ASN: 412 networks, 186 rows)', () => {
    const outcomes = rowsOf('GeoLite2-ASN-Test');
    expect(outcomes.filter((o) => 'row' in o)).toHaveLength(186);
    expect(outcomes.reduce((n, o) => n + ('row' in o ? o.read : 0), 0)).toBe(412);
    const att = rows('GeoLite2-ASN-Test').filter((r) => r.asn === 7018);
    // 12.81.92.0/22 names AT&T Services; the fourteen networks from 12.81.96.0/19 to 12.96.16.0/24 name no one.
    expect(att.slice(0, 2)).toEqual([
      { family: 4, first: '12.81.92.0', last: '12.81.95.255', asn: 7018, name: 'AT&T Services', domain: null, type: null },
      { family: 4, first: '12.81.96.0', last: '12.96.16.255', asn: 7018, name: null, domain: null, type: null },
    ]);
  });

  it("types GeoIP2-Enterprise's networks by user_type, and skips records with nothing usable", () => {
    const outcomes = rowsOf('GeoIP2-Enterprise-Test');
    expect(outcomes.filter((o) => 'unusable' in o)).toHaveLength(6);
    expect(outcomes.filter((o) => 'error' in o)).toEqual([]);
    const byFirst = new Map(rows('GeoIP2-Enterprise-Test').map((r) => [r.first, r]));
    expect(byFirst.get('214.78.120.0')).toEqual({
      family: 4,
      first: '214.78.120.0',
      last: '214.78.123.255',
      asn: 14593,
      name: 'Starlink',
      domain: 'starlinkisp.net',
      type: 'isp',
    });
    expect(byFirst.get('2001:480:10:0:0:0:0:0')).toMatchObject({ asn: 22, name: 'DNIC', domain: 'navy.mil', type: 'government' });
    expect(byFirst.get('67.43.156.0')).toMatchObject({ asn: 35908, name: 'zudoarichikito_', domain: 'shoesfin.net', type: 'hosting' });
    expect(byFirst.get('1.9.127.107')).toMatchObject({ asn: null, name: null, type: 'business' });
    expect(byFirst.get('1.124.213.0')).toMatchObject({ asn: 44244, type: 'mobile' });
    expect(byFirst.get('149.101.100.0')).toMatchObject({ asn: 6167, name: 'Verizon Wireless', type: 'mobile' });
  });

  it('types GeoIP2-Connection-Type networks and GeoIP2-ISP mobile networks', () => {
    const connection = new Map(rows('GeoIP2-Connection-Type-Test').map((r) => [r.first, r.type]));
    expect(connection.get('1.0.1.0')).toBe('mobile');
    expect(connection.get('201.243.200.0')).toBe('business');
    expect(connection.get('214.78.120.0')).toBe('isp');
    expect(connection.get('2003:0:0:0:0:0:0:0')).toBe('isp');
    const isp = new Map(rows('GeoIP2-ISP-Test').map((r) => [r.first, r]));
    expect(isp.get('149.101.100.0')).toMatchObject({ asn: 6167, name: 'Verizon Wireless', type: 'mobile' });
    expect(isp.get('1.128.0.0')).toMatchObject({ asn: 1221, name: 'Telstra Internet', type: null });
  });

  it('finds nothing to import in a City database', () => {
    expect(rowsOf('GeoIP2-City-Test').every((o) => 'unusable' in o)).toBe(true);
  });
});
