import { combineSeeds, mix32, objectIdFor, seededRandom } from './seeded-random.js';

describe('seededRandom', () => {
  it('when two generators share a seed, then they give the same sequence', () => {
    const [a, b] = [seededRandom(42), seededRandom(42)];
    const draw = (r: ReturnType<typeof seededRandom>) => Array.from({ length: 20 }, () => r.int(0, 1000));
    expect(draw(a)).toEqual(draw(b));
    expect(draw(seededRandom(43))).not.toEqual(draw(seededRandom(42)));
  });

  it('when drawing integers, then they stay within the bounds, both included', () => {
    const random = seededRandom(7);
    const values = new Set(Array.from({ length: 2000 }, () => random.int(3, 6)));
    expect([...values].sort()).toEqual([3, 4, 5, 6]);
  });

  it('when sampling, then the items are distinct and come from the list', () => {
    const sample = seededRandom(1).sample(['a', 'b', 'c', 'd', 'e'], 3);
    expect(new Set(sample).size).toBe(3);
    expect(sample.every((x) => 'abcde'.includes(x))).toBe(true);
  });
});

describe('combineSeeds and mix32', () => {
  it('when seeds differ only in order or in their high bits, then the combined seeds differ', () => {
    expect(combineSeeds(1, 2)).not.toBe(combineSeeds(2, 1));
    expect(combineSeeds(5)).not.toBe(combineSeeds(5 + 2 ** 32));
    expect(mix32(0)).toBe(0);
    expect(mix32(1)).not.toBe(1);
  });
});

describe('objectIdFor', () => {
  it('when ids are made for many indexes, then each is 24 lower-case hex characters and none repeats', () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => objectIdFor('person', 0, i));
    expect(ids.every((id) => /^[0-9a-f]{24}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('when the namespace or the seed differs, then the id for one index differs', () => {
    expect(objectIdFor('person', 0, 1)).not.toBe(objectIdFor('organization', 0, 1));
    expect(objectIdFor('person', 0, 1)).not.toBe(objectIdFor('person', 1, 1));
    expect(objectIdFor('person', 0, 1).slice(8)).not.toBe(objectIdFor('organization', 0, 1).slice(8));
  });

  it('when the index is not a non-negative integer, then it throws', () => {
    expect(() => objectIdFor('person', 0, -1)).toThrow();
    expect(() => objectIdFor('person', 0, 1.5)).toThrow();
  });
});
