// Every network of a MaxMind DB file, in address order, with its data record: mmdb-lib's Reader
// answers lookups but has no iterator, so the search tree is walked here (MaxMind-DB-spec.md, "Search
// Tree Section") and the records decoded with mmdb-lib's own decoder. In an IPv6 tree the IPv4 space
// is ::/96, and ::ffff:0:0/96 and 2002::/16 (and any other alias) point at the same node: its
// networks are given once, as IPv4.
import { Reader, type Response } from 'mmdb-lib';
import Decoder from 'mmdb-lib/lib/decoder.js';

export interface MmdbNetwork {
  family: 4 | 6;
  /** First and last address as values (IPv4 in the low 32 bits). */
  first: bigint;
  last: bigint;
  prefix: number;
  /** The record's pointer: networks that share a record share it, so it keys a cache of decoded records. */
  pointer: number;
}

export interface MmdbFile {
  databaseType: string;
  ipVersion: number;
  networks(): Generator<MmdbNetwork>;
  record(pointer: number): unknown;
  lookup(address: string): Response | null;
}

// The data section follows the tree after 16 bytes of zeros.
const DATA_SECTION_SEPARATOR = 16;

/** The two records of node n, as the interface lays them out for 24-, 28- and 32-bit records. */
function nodeRecords(db: Buffer, recordSize: number): (node: number) => [number, number] {
  switch (recordSize) {
    case 24:
      return (n) => [db.readUIntBE(n * 6, 3), db.readUIntBE(n * 6 + 3, 3)];
    case 28:
      return (n) => {
        const o = n * 7;
        const middle = db[o + 3]!;
        return [((middle & 0xf0) << 20) | db.readUIntBE(o, 3), ((middle & 0x0f) << 24) | db.readUIntBE(o + 4, 3)];
      };
    case 32:
      return (n) => [db.readUInt32BE(n * 8), db.readUInt32BE(n * 8 + 4)];
    default:
      throw new Error(`unsupported record size ${recordSize}`);
  }
}

interface Entry {
  record: number;
  depth: number;
  value: bigint;
  family: 4 | 6;
}

/** Opens a MaxMind DB file (its metadata is checked by mmdb-lib; throws when it is not one). */
export function openMmdb(db: Buffer): MmdbFile {
  const reader = new Reader<Response>(db);
  const { nodeCount, recordSize, ipVersion, searchTreeSize, databaseType } = reader.metadata;
  const records = nodeRecords(db, recordSize);
  const decoder = new Decoder(db, searchTreeSize + DATA_SECTION_SEPARATOR);
  // The node of ::/96, where IPv4 lookups start in an IPv6 tree (nodeCount or more: no such node).
  let ipv4Node = 0;
  for (let i = 0; ipVersion === 6 && i < 96 && ipv4Node < nodeCount; i += 1) ipv4Node = records(ipv4Node)[0];

  function* networks(): Generator<MmdbNetwork> {
    const stack: Entry[] = [{ record: 0, depth: 0, value: 0n, family: ipVersion === 4 ? 4 : 6 }];
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const { record, value } = entry;
      let { depth, family } = entry;
      if (record === nodeCount) continue; // no data for this network
      const atIpv4 = family === 6 && depth === 96 && value === 0n;
      if (record < nodeCount) {
        if (atIpv4 && record === ipv4Node) [family, depth] = [4, 0];
        else if (record === ipv4Node && ipVersion === 6) continue; // an alias of the IPv4 space
        const bits = family === 4 ? 32 : 128;
        if (depth >= bits) throw new Error('corrupt search tree: deeper than the address');
        const [left, right] = records(record);
        const step = depth + 1;
        stack.push({ record: right, depth: step, value: value | (1n << BigInt(bits - step)), family }, { record: left, depth: step, value, family });
        continue;
      }
      const pointer = record;
      // A network holding all of ::/96 holds all of IPv4 too (a tree without an IPv4 subtree).
      if (family === 6 && value === 0n && depth <= 96) yield { family: 4, first: 0n, last: 0xffffffffn, prefix: 0, pointer };
      const host = (1n << BigInt((family === 4 ? 32 : 128) - depth)) - 1n;
      yield { family, first: value, last: value | host, prefix: depth, pointer };
    }
  }

  return {
    databaseType,
    ipVersion,
    networks,
    record: (pointer) => decoder.decode(pointer - nodeCount + searchTreeSize).value,
    lookup: (address) => reader.get(address),
  };
}
