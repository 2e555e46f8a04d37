import { decodeVisitorCursor, encodeVisitorCursor, zeroFilledHours } from './visitor-views';

describe('visitor views', () => {
  it('when hours are missing, then the 24 hours ending with the current one are zeros, oldest first', () => {
    const now = new Date('2026-01-02T10:42:00.000Z');
    const hours = zeroFilledHours([{ hour: '2026-01-02T09:00:00.000Z', pageViews: 5, visitors: 2, bots: 1 }], now);
    expect(hours).toHaveLength(24);
    expect(hours[0]!.hour).toBe('2026-01-01T11:00:00.000Z');
    expect(hours[23]).toEqual({ hour: '2026-01-02T10:00:00.000Z', pageViews: 0, visitors: 0, bots: 0 });
    expect(hours[22]).toEqual({ hour: '2026-01-02T09:00:00.000Z', pageViews: 5, visitors: 2, bots: 1 });
  });

  it('round-trips a cursor and refuses a forged one', () => {
    const c = { identified: true, lastSeen: '2026-01-02T10:42:00.000Z', id: 'a'.repeat(24) };
    expect(decodeVisitorCursor(encodeVisitorCursor(c))).toEqual(c);
    expect(() => decodeVisitorCursor(Buffer.from(`1|${c.lastSeen}|x' OR 1=1`).toString('base64url'))).toThrow(/cursor/);
    expect(() => decodeVisitorCursor('!!')).toThrow(/cursor/);
  });
});
