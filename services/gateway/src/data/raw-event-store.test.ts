import { encodeRawEvent } from './raw-event-codec';
import { decodeRecentCursor, liveBuckets, recentPage } from './raw-event-store';

const event = (n: number) => ({
  eventId: `0d8c4a9e-51a2-4c3e-9c1f-6f1d2a3b4c${String(n).padStart(2, '0')}`,
  event: 'signed_up',
  email: 'jane.doe@example.com',
  properties: { n },
  receivedAt: '2026-11-25T21:40:55.123Z',
});

describe('recentPage', () => {
  it('when the script returns one entry more than the page, then the page is cut there and its cursor points at its last entry', () => {
    const flat = [4, 100, '1-0', encodeRawEvent(event(1)), 100, '2-0', encodeRawEvent(event(2)), 99, '3-0', encodeRawEvent(event(3))];
    const page = recentPage(flat, 2);
    expect(page.items).toEqual([event(1), event(2)]);
    expect(page.dropped).toBe(4);
    expect(decodeRecentCursor(page.next!)).toEqual({ bucket: 100, id: '2-0' });
  });

  it('when the script returns no more than the page, then there is no next page; an empty reply is an empty page', () => {
    expect(recentPage([0, 100, '1-0', encodeRawEvent(event(1))], 2)).toEqual({ items: [event(1)], next: null, dropped: 0 });
    expect(recentPage([], 5)).toEqual({ items: [], next: null, dropped: 0 });
  });

  it('when a stored value cannot be decoded, then it is left out of the items but still counts for the cursor', () => {
    const page = recentPage([0, 100, '1-0', 'garbage', 100, '2-0', encodeRawEvent(event(2))], 1);
    expect(page.items).toEqual([]);
    expect(decodeRecentCursor(page.next!)).toEqual({ bucket: 100, id: '1-0' });
  });
});

describe('liveBuckets', () => {
  it("keeps rawmeta's bucket fields at or after the cutoff, nothing else", () => {
    expect(liveBuckets(['n:98', 'n:99', 'n:100', 'b:100', 'bytes'], 99)).toEqual([99, 100]);
  });
});
