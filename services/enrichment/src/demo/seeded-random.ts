// Deterministic randomness for synthetic data: the same seed gives the same sequence on every
// machine (mulberry32), and ids are a bijection of their index so they never collide.

/** The murmur3 finalizer: a bijection on 32-bit integers that spreads nearby seeds far apart. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One 32-bit seed from several numbers (each taken as an unsigned 32-bit integer, high bits too). */
export function combineSeeds(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = mix32(h ^ mix32(part >>> 0));
    h = mix32(h ^ Math.floor(part / 2 ** 32));
  }
  return h;
}

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** `count` distinct items in random order (all of them when there are fewer). */
  sample<T>(items: readonly T[], count: number): T[];
  /** An item chosen with probability proportional to its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  chance(probability: number): boolean;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[int(0, items.length - 1)]!;
  };
  return {
    next,
    int,
    pick,
    sample: (items, count) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy.slice(0, count);
    },
    weighted: (items) => {
      const total = items.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [item, weight] of items) {
        roll -= weight;
        if (roll < 0) return item;
      }
      return items[items.length - 1]![0];
    },
    chance: (probability) => next() < probability,
  };
}

const MASK_64 = (1n << 64n) - 1n;

/** A bijection on 64-bit integers (xorshift-multiply steps, each invertible). */
function permute64(value: bigint): bigint {
  let x = value & MASK_64;
  x ^= x >> 31n;
  x = (x * 0x9e3779b97f4a7c15n) & MASK_64;
  x ^= x >> 29n;
  x = (x * 0xbf58476d1ce4e5b9n) & MASK_64;
  x ^= x >> 32n;
  return x;
}

/**
 * A 24-hex object id for the index-th item of a namespace: 8 hex that look like an object id's
 * timestamp, then 16 hex that are a bijection of the index offset by a salt of the namespace and
 * seed, so two indexes of one namespace and seed never share an id and namespaces look unrelated.
 */
export function objectIdFor(namespace: string, seed: number, index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new Error(`index must be a non-negative integer, got ${index}`);
  const salt = combineSeeds(seed, ...[...namespace].map((c) => c.charCodeAt(0)));
  // 0x5e000000..0x65ffffff: object-id timestamps between 2020 and 2024.
  const time = 0x5e000000 + (salt % 0x08000000);
  const offset = (BigInt(mix32(salt ^ 0x5bd1e995)) << 32n) | BigInt(salt);
  return (
    time.toString(16).padStart(8, '0') +
    permute64(BigInt(index) + offset)
      .toString(16)
      .padStart(16, '0')
  );
}
