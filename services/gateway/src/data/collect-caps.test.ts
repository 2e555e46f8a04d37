import { admitted } from './collect-caps';

describe('admitted', () => {
  it('when a count passes the cap, then only what fitted under it is admitted', () => {
    expect(admitted(3, 3, 10)).toBe(3);
    expect(admitted(3, 11, 10)).toBe(2);
    expect(admitted(3, 13, 10)).toBe(0);
    expect(admitted(3, 20, 10)).toBe(0);
  });
});
