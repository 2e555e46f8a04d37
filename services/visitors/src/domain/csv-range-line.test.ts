import { csvColumns, csvRangeParser, DEFAULT_CSV_COLUMNS, splitCsvLine, type CsvColumns } from './csv-range-line.js';

const columns = (names: readonly string[]) => csvColumns(names) as CsvColumns;

describe('splitCsvLine', () => {
  it('splits on commas, and keeps a quoted field whole (commas and doubled quotes inside)', () => {
    expect(splitCsvLine('1.0.0.0,1.0.0.255,13335,Cloudflare')).toEqual(['1.0.0.0', '1.0.0.255', '13335', 'Cloudflare']);
    expect(splitCsvLine('1.0.0.0,1.0.0.255,64500,"Foo, Inc."')).toEqual(['1.0.0.0', '1.0.0.255', '64500', 'Foo, Inc.']);
    expect(splitCsvLine('"a ""quoted"" name",,"x"')).toEqual(['a "quoted" name', '', 'x']);
    expect(splitCsvLine('"",a,')).toEqual(['', 'a', '']);
  });

  it('refuses a quote left open, or text after a closing quote', () => {
    expect(splitCsvLine('1.0.0.0,1.0.0.255,"Foo, Inc.')).toBeNull();
    expect(splitCsvLine('1.0.0.0,"Foo" Inc,x')).toBeNull();
    expect(splitCsvLine('1.0.0.0,Fo"o,x')).toBeNull();
  });
});

describe('csvColumns', () => {
  it('finds the recognised columns and ignores the others', () => {
    expect(csvColumns(DEFAULT_CSV_COLUMNS)).toMatchObject({ place: { start: 0, end: 1 }, asn: 2, name: 3 });
    expect(csvColumns(['start', 'end', '-', '-', 'asn', 'NAME', 'domain'])).toMatchObject({ place: { start: 0, end: 1 }, asn: 4, name: 5, domain: 6 });
    expect(csvColumns(['cidr', '-', '-', '-', '-', 'asn', 'name', 'domain'])).toMatchObject({ place: { cidr: 0 }, asn: 5, name: 6, domain: 7 });
  });

  it('needs start and end, or cidr, each once', () => {
    expect(csvColumns(['start', 'asn'])).toEqual({ error: 'columns: start and end, or cidr, are required' });
    expect(csvColumns(['start', 'end', 'cidr'])).toEqual({ error: 'columns: start and end, or cidr, are required' });
    expect(csvColumns(['start', 'end', 'name', 'name'])).toEqual({ error: 'columns: name named twice' });
  });
});

describe('a CSV line → a range', () => {
  it('reads ip-location-db ASN lines (start_ip,end_ip,asn,org), "AS15169" and "15169" alike', () => {
    const parse = csvRangeParser(columns(DEFAULT_CSV_COLUMNS));
    expect(parse('1.0.4.0,1.0.7.255,38803,Wirefreebroadband Pty Ltd')).toEqual({
      family: 4,
      first: '1.0.4.0',
      last: '1.0.7.255',
      asn: 38803,
      name: 'Wirefreebroadband Pty Ltd',
      domain: null,
      type: null,
    });
    expect(parse('2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,AS15169,Google LLC')).toMatchObject({ family: 6, asn: 15169, name: 'Google LLC' });
  });

  it("reads IPinfo's layout with the columns named (start_ip,end_ip,asn,name,domain,type)", () => {
    const parse = csvRangeParser(columns(['start', 'end', 'asn', 'name', 'domain', 'type']));
    expect(parse('1.0.0.0,1.0.0.255,AS13335,"Cloudflare, Inc.",cloudflare.com,hosting')).toMatchObject({
      asn: 13335,
      name: 'Cloudflare, Inc.',
      domain: 'cloudflare.com',
      type: 'hosting',
    });
    expect(parse('1.0.0.0,1.0.0.255,,,,')).toMatchObject({ asn: null, name: null, domain: null, type: null });
  });

  it("reads IPinfo Lite's layout, a CIDR (network) with asn, as_name and as_domain", () => {
    const parse = csvRangeParser(columns(['cidr', '-', '-', '-', '-', 'asn', 'name', 'domain']));
    expect(parse('network,country,country_code,continent,continent_code,asn,as_name,as_domain')).toBeNull();
    expect(parse('1.0.0.0/24,Australia,AU,Oceania,OC,AS13335,"Cloudflare, Inc.",cloudflare.com')).toEqual({
      family: 4,
      first: '1.0.0.0',
      last: '1.0.0.255',
      asn: 13335,
      name: 'Cloudflare, Inc.',
      domain: 'cloudflare.com',
      type: null,
    });
    expect(parse('1.0.0.0/33,Australia,AU,Oceania,OC,AS13335,x,')).toEqual({ error: 'cidr: prefix longer than 32 bits' });
  });

  it('skips a header (a first line whose start is not an address) and a byte-order mark', () => {
    const parse = csvRangeParser(columns(DEFAULT_CSV_COLUMNS));
    expect(parse('\uFEFFstart_ip,end_ip,asn,org')).toBeNull();
    expect(parse('1.0.0.0,1.0.0.255,13335,Cloudflare')).toMatchObject({ asn: 13335 });
    // Only the first line can be a header: later, a bad start is an error.
    expect(parse('start_ip,end_ip,asn,org')).toEqual({ error: 'start: not an IPv4 or IPv6 address' });
  });

  it('reports a bad address, a reversed range, mixed families, a bad asn, type or domain, too few columns', () => {
    const parse = csvRangeParser(columns(['start', 'end', 'asn', 'name', 'domain', 'type']));
    parse('1.0.0.0,1.0.0.255,1,first');
    expect(parse('1.0.0.9,1.0.0.1,1,x')).toEqual({ error: 'start is after end' });
    expect(parse('1.0.0.1,::1,1,x')).toEqual({ error: 'start and end are of different families (IPv4 and IPv6)' });
    expect(parse('1.0.0.1,1.0.0.2,ASX,x')).toEqual({ error: 'asn: not an AS number (15169 or AS15169)' });
    expect(parse('1.0.0.1,1.0.0.2,1,x,,cafe')).toEqual({ error: 'type: one of business, education, government, isp, mobile, hosting, unknown' });
    expect(parse('1.0.0.1,1.0.0.2,1,x,not a domain')).toEqual({ error: 'domain: not a domain name' });
    expect(parse('1.0.0.1')).toEqual({ error: 'fewer than 2 columns' });
    expect(parse('1.0.0.1,1.0.0.2,1,"open')).toHaveProperty('error');
  });
});
