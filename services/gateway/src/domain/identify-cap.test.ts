import type { CollectedMessage } from '@glimpse/messaging';
import { dropIdentifiesBeyond, identifiesIn } from './identify-cap';

const m = (type: string, id: string) => ({ type, id }) as unknown as CollectedMessage;

describe('identifies past the cap', () => {
  it('when a batch has more identifies than the cap admits, then the first ones stay, the rest go, other messages stay in order', () => {
    const batch = [m('pageview', 'p1'), m('identify', 'i1'), m('identify', 'i2'), m('track', 't1'), m('identify', 'i3')];
    expect(identifiesIn(batch)).toBe(3);
    expect(dropIdentifiesBeyond(batch, 1)).toBe(2);
    expect(batch.map((x) => x.id)).toEqual(['p1', 'i1', 't1']);
  });

  it('when the cap admits them all, then nothing is removed', () => {
    const batch = [m('identify', 'i1'), m('pageview', 'p1')];
    expect(dropIdentifiesBeyond(batch, 5)).toBe(0);
    expect(batch).toHaveLength(2);
  });
});
