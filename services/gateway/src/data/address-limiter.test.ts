import { createAddressLimiter } from './address-limiter';

describe('address limiter', () => {
  it('when an address spends its burst, then it is refused with a wait of a whole second at least, while another address is not', () => {
    const limiter = createAddressLimiter({ perSecond: 1, burst: 3 });
    const taken = [1, 2, 3, 4].map(() => limiter.take('203.0.113.1'));
    expect(taken.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(taken.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(taken[3]!.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(limiter.take('203.0.113.2').allowed).toBe(true);
    expect(limiter.peek('203.0.113.1')).toMatchObject({ limit: 3, remaining: 0 });
  });

  it('when time passes, then tokens come back at the steady rate', async () => {
    const limiter = createAddressLimiter({ perSecond: 50, burst: 1 });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('when IPv6 addresses of one /64 take turns, then they share one bucket; another /64 and an IPv4-mapped address are counted apart', () => {
    const limiter = createAddressLimiter({ perSecond: 1, burst: 2 });
    expect(limiter.take('2001:db8:1:2::1').allowed).toBe(true);
    expect(limiter.take('2001:db8:1:2:ffff::9').allowed).toBe(true);
    expect(limiter.take('2001:0db8:0001:0002:abcd::1').allowed).toBe(false);
    expect(limiter.take('2001:db8:1:3::1').allowed).toBe(true);
    expect(limiter.take('::ffff:198.51.100.7').allowed).toBe(true);
    expect(limiter.take('198.51.100.7').allowed).toBe(true);
    expect(limiter.take('198.51.100.7').allowed).toBe(false);
  });

  it('when a token is refunded, then the address has it again, never past its burst', () => {
    const limiter = createAddressLimiter({ perSecond: 0.001, burst: 2 });
    limiter.take('203.0.113.5');
    limiter.take('203.0.113.5');
    expect(limiter.take('203.0.113.5').allowed).toBe(false);
    limiter.refund('203.0.113.5');
    expect(limiter.take('203.0.113.5').allowed).toBe(true);
    limiter.refund('203.0.113.6');
    expect(limiter.peek('203.0.113.6').remaining).toBe(2);
  });
});
