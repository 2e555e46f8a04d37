import { createForwardCap } from './forward-cap';

const f = (accountId: string, id: string) => ({ accountId, id });

describe('forward cap', () => {
  it('when an account passes its cap in a window, then its further forwards are left out, another account is unaffected, and the next window starts afresh', () => {
    let t = 0;
    const cap = createForwardCap({ perWindow: 2, now: () => t });
    expect(cap.admit([f('a', '1'), f('b', '1'), f('a', '2')]).map((x) => x.accountId + x.id)).toEqual(['a1', 'b1', 'a2']);
    expect(cap.admit([f('a', '3'), f('b', '2'), f('b', '3')]).map((x) => x.accountId + x.id)).toEqual(['b2']);
    t = 60_000;
    expect(cap.admit([f('a', '4')])).toHaveLength(1);
  });
});
