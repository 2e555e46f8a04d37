import { applyBisecting, backoff, StoppedError, type BisectOptions } from './bisect';

function harness(poison: Set<number>, overrides: Partial<BisectOptions<number>> = {}) {
  const applied: number[] = [];
  const calls: number[][] = [];
  const dead: [number, string, number][] = [];
  const sleeps: number[] = [];
  const options: BisectOptions<number> = {
    async apply(items) {
      calls.push(items);
      if (items.some((i) => poison.has(i))) throw Object.assign(new Error('refused'), { code: '22021' });
      applied.push(...items);
    },
    isOutage: async () => false,
    deadLetter: async (item, reason, attempts) => {
      dead.push([item, reason, attempts]);
    },
    reason: (err) => `postgres ${(err as { code: string }).code}`,
    maxAttempts: 3,
    backoffMs: backoff(10, 1000),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    keepGoing: () => true,
    ...overrides,
  };
  return { applied, calls, dead, sleeps, options };
}

describe('applyBisecting', () => {
  it('when one message of a batch is poison, then the rest is applied in order, the poison dead-lettered after 3 attempts with its reason, in about log2(n) splits', async () => {
    const h = harness(new Set([5]));
    const items = Array.from({ length: 16 }, (_, i) => i);
    await applyBisecting(items, h.options);
    expect(h.applied).toEqual(items.filter((i) => i !== 5));
    expect(h.dead).toEqual([[5, 'postgres 22021', 3]]);
    expect(h.sleeps).toEqual([10, 20]);
    // 1 whole + 2 per level (4 levels) + 2 more attempts of the single message, at most.
    expect(h.calls.length).toBeLessThanOrEqual(1 + 2 * 4 + 2);
  });

  it('when the failure is an outage, then the same batch is retried whole, never split nor dead-lettered', async () => {
    let down = 3;
    const h = harness(new Set(), {});
    const apply = h.options.apply;
    h.options.apply = async (items) => {
      if (down-- > 0) throw new Error('connect ECONNREFUSED');
      await apply(items);
    };
    h.options.isOutage = async () => true;
    await applyBisecting([1, 2, 3, 4], h.options);
    expect(h.applied).toEqual([1, 2, 3, 4]);
    expect(h.dead).toEqual([]);
    expect(h.sleeps).toEqual([1000, 1000, 1000]);
  });

  it('when a single message fails once and then passes, then it is applied, not dead-lettered', async () => {
    let fails = 1;
    const h = harness(new Set());
    const apply = h.options.apply;
    h.options.apply = async (items) => {
      if (fails-- > 0) throw new Error('deadlock detected');
      await apply(items);
    };
    await applyBisecting([7], h.options);
    expect(h.applied).toEqual([7]);
    expect(h.dead).toEqual([]);
  });

  it('when the consumer stops while retrying, then it gives up without dead-lettering', async () => {
    let going = true;
    const h = harness(new Set([1]), { keepGoing: () => going });
    h.options.sleep = async () => {
      going = false;
    };
    await expect(applyBisecting([1], h.options)).rejects.toBeInstanceOf(StoppedError);
    expect(h.dead).toEqual([]);
  });

  it('when the attempts grow, then the back-off doubles up to its ceiling', () => {
    const b = backoff(100, 1000);
    expect([1, 2, 3, 4, 5, 60].map(b)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});
