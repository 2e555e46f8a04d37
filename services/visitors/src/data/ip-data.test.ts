import fs from 'node:fs';
import path from 'node:path';
import { cityLocator, locationOf } from './ip-data.js';

const CITY = path.join(__dirname, '..', '..', 'test', 'fixtures', 'ip-data', 'GeoIP2-City-Test.mmdb');

describe('the location of an address', () => {
  it("reads MaxMind's City layout from the real test database (its known answers)", () => {
    const locate = cityLocator(fs.readFileSync(CITY));
    expect(locate('81.2.69.142')).toEqual({ country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' });
    expect(locate('89.160.20.115')).toMatchObject({ country: 'SE', city: 'Linköping', time_zone: 'Europe/Stockholm' });
    expect(locate('::ffff:81.2.69.142')).toMatchObject({ city: 'London' });
    expect(locate('192.0.2.1')).toBeNull();
    expect(locate('not an address')).toBeNull();
  });

  it("reads ip-location-db's flat layout, and nothing from an empty record", () => {
    expect(locationOf({ city: 'Monterey', country_code: 'US', state1: 'California', timezone: '' } as never)).toEqual({
      country: 'US',
      region: 'California',
      city: 'Monterey',
      time_zone: null,
    });
    expect(locationOf({} as never)).toBeNull();
  });
});
