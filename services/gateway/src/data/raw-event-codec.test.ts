import { randomUUID } from 'node:crypto';
import { decodeRawEvent, encodeRawEvent, FIELD_SEPARATOR } from './raw-event-codec';

const event = (overrides = {}) => ({
  eventId: randomUUID(),
  event: 'signed_up',
  email: 'jane.doe@example.com',
  properties: { plan: 'pro', seats: 3, trial: true } as Record<string, string | number | boolean>,
  receivedAt: '2026-11-25T21:40:55.123Z',
  ...overrides,
});

describe('the compact form of a raw event', () => {
  it('when an event is encoded and decoded, then it comes back equal, smaller than its JSON', () => {
    const e = event();
    const encoded = encodeRawEvent(e);
    expect(decodeRawEvent(encoded)).toEqual(e);
    expect(encoded.length).toBeLessThan(JSON.stringify(e).length - 60);
  });

  it('when a property holds the separator, quotes or other control characters, then the separator never appears inside a field and the value survives', () => {
    const e = event({ properties: { note: `a${FIELD_SEPARATOR}b "c"\n\u0000`, emoji: '😀', n: -1.5e-7 } });
    const encoded = encodeRawEvent(e);
    expect(encoded.split(FIELD_SEPARATOR)).toHaveLength(5);
    expect(decodeRawEvent(encoded)).toEqual(e);
  });

  it('when the email is the third field, then a reader of the fields finds it there (the erasure script relies on it)', () => {
    expect(encodeRawEvent(event({ email: 'x@y.io' })).split(FIELD_SEPARATOR)[2]).toBe('x@y.io');
  });

  it.each([['not a value'], ['a\x1fb\x1fc\x1fd'], [`short\x1fsigned_up\x1fa@b.c\x1f{}\x1f1`], [`${'A'.repeat(22)}\x1fe\x1fa@b.c\x1f{bad\x1f1`]])(
    'when %j is read, then it is not an event',
    (value) => {
      expect(decodeRawEvent(value)).toBeNull();
    },
  );
});
