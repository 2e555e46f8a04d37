// The ranges of one dataset as disjoint, sorted segments per address family, each pointing at its
// record: a lookup is one binary search (about a microsecond with a million ranges), done in the
// visitors replica for every page view instead of a Postgres probe. Ranges may nest (a /16 and a
// /24 inside it, as CIDR files and MaxMind trees have): the innermost one holds its addresses, and
// of two ranges that overlap without nesting, the one that starts later holds the overlap.
import { parseAddress, v6Parts, v6Value } from './ip-address.js';

export interface RangeInput<R> {
  first: string;
  last: string;
  record: R;
}

interface Segments {
  /** IPv4: start and end of each segment; IPv6: their high and low halves. */
  starts: Uint32Array | BigUint64Array[];
  ends: Uint32Array | BigUint64Array[];
  records: Uint32Array;
}

export interface RangeIndex<R> {
  /** The record of the segment holding the address, or undefined (also for a string that is no address). */
  find(address: string): R | undefined;
  /** Segments after flattening, per family. */
  readonly size: { v4: number; v6: number };
  /** Ranges given whose addresses did not parse or were of two families, or ran backwards. */
  readonly refused: number;
  readonly records: readonly R[];
}

interface Open<T> {
  s: T;
  e: T;
  rec: number;
}

/** Flattens ranges (sorted by start, then the longest first) into disjoint segments, innermost wins. */
function flatten<T extends number | bigint>(ranges: Open<T>[], one: T): { s: T[]; e: T[]; r: number[] } {
  ranges.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : a.e > b.e ? -1 : a.e < b.e ? 1 : 0));
  const out = { s: [] as T[], e: [] as T[], r: [] as number[] };
  const emit = (s: T, e: T, rec: number) => {
    if (s > e) return;
    const n = out.s.length - 1;
    // Adjacent segments of one record are one segment.
    if (n >= 0 && out.r[n] === rec && (out.e[n]! as bigint) + (one as bigint) === (s as bigint)) out.e[n] = e;
    else {
      out.s.push(s);
      out.e.push(e);
      out.r.push(rec);
    }
  };
  const stack: Open<T>[] = [];
  let cursor: T | null = null;
  const closeUntil = (limit: T | null) => {
    while (stack.length > 0 && (limit === null || stack[stack.length - 1]!.e < limit)) {
      const top = stack.pop()!;
      if (cursor === null || cursor <= top.e) emit(cursor === null || cursor < top.s ? top.s : cursor, top.e, top.rec);
      if (cursor === null || top.e >= cursor) cursor = ((top.e as bigint) + (one as bigint)) as T;
    }
  };
  for (const r of ranges) {
    closeUntil(r.s);
    const top = stack[stack.length - 1];
    if (top && cursor !== null && cursor < r.s) emit(cursor, ((r.s as bigint) - (one as bigint)) as T, top.rec);
    if (top && cursor === null) emit(top.s, ((r.s as bigint) - (one as bigint)) as T, top.rec);
    cursor = r.s;
    stack.push(r);
  }
  closeUntil(null);
  return out;
}

function search(starts: ArrayLike<number>, ends: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! > value) hi = mid - 1;
    else if (ends[mid]! < value) lo = mid + 1;
    else return mid;
  }
  return -1;
}

function search6(s: BigUint64Array[], e: BigUint64Array[], hi: bigint, lo: bigint): number {
  const [sh, sl] = s as [BigUint64Array, BigUint64Array];
  const [eh, el] = e as [BigUint64Array, BigUint64Array];
  let a = 0;
  let b = sh.length - 1;
  while (a <= b) {
    const mid = (a + b) >>> 1;
    const startAbove = sh[mid]! > hi || (sh[mid]! === hi && sl[mid]! > lo);
    if (startAbove) b = mid - 1;
    else if (eh[mid]! < hi || (eh[mid]! === hi && el[mid]! < lo)) a = mid + 1;
    else return mid;
  }
  return -1;
}

export function buildRangeIndex<R>(ranges: Iterable<RangeInput<R>>): RangeIndex<R> {
  const records: R[] = [];
  // One index per distinct record object, so adjacent ranges of one record merge.
  const indexOf = new Map<R, number>();
  const recordIndex = (record: R) => {
    let i = indexOf.get(record);
    if (i === undefined) indexOf.set(record, (i = records.push(record) - 1));
    return i;
  };
  const v4: Open<number>[] = [];
  const v6: Open<bigint>[] = [];
  let refused = 0;
  for (const range of ranges) {
    const first = parseAddress(range.first);
    const last = parseAddress(range.last);
    if (first === null || last === null || first.family !== last.family) {
      refused += 1;
      continue;
    }
    if (first.family === 4 && last.family === 4) {
      if (first.value > last.value) refused += 1;
      else v4.push({ s: first.value, e: last.value, rec: recordIndex(range.record) });
    } else if (first.family === 6 && last.family === 6) {
      const s = v6Value(first.hi, first.lo);
      const e = v6Value(last.hi, last.lo);
      if (s > e) refused += 1;
      else v6.push({ s, e, rec: recordIndex(range.record) });
    }
  }
  const f4 = flatten(v4, 1);
  const f6 = flatten(v6, 1n);
  const four: Segments = { starts: Uint32Array.from(f4.s), ends: Uint32Array.from(f4.e), records: Uint32Array.from(f4.r) };
  const halves = (values: bigint[]) => {
    const h = new BigUint64Array(values.length);
    const l = new BigUint64Array(values.length);
    values.forEach((v, i) => {
      const p = v6Parts(v);
      h[i] = p.hi;
      l[i] = p.lo;
    });
    return [h, l];
  };
  const six: Segments = { starts: halves(f6.s), ends: halves(f6.e), records: Uint32Array.from(f6.r) };
  return {
    size: { v4: four.records.length, v6: six.records.length },
    refused,
    records,
    find(address) {
      const a = parseAddress(address);
      if (a === null) return undefined;
      const i =
        a.family === 4
          ? search(four.starts as Uint32Array, four.ends as Uint32Array, a.value)
          : search6(six.starts as BigUint64Array[], six.ends as BigUint64Array[], a.hi, a.lo);
      if (i < 0) return undefined;
      return records[(a.family === 4 ? four : six).records[i]!];
    },
  };
}
