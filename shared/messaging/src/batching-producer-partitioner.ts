// Keys hashed to partitions as kafkajs's DefaultPartitioner (and the Java client) does, with a
// 32-bit murmur2: the one of kafkajs builds 64-bit Long objects for every four bytes.
import type { PartitionerArgs } from 'kafkajs';
import { randomInt } from 'node:crypto';

/**
 * Kafka's murmur2 (the Java client's Utils.murmur2) in 32-bit arithmetic: the same hash as
 * kafkajs's DefaultPartitioner, so a key goes to the same partition as before (and as with a Java
 * producer). A test holds it to kafkajs's own implementation.
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  switch (length & 3) {
    case 3:
      h ^= data[whole + 2]! << 16;
    // falls through
    case 2:
      h ^= data[whole + 1]! << 8;
    // falls through
    case 1:
      h ^= data[whole]!;
      h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * kafkajs's DefaultPartitioner, rule for rule: a message's own partition; else its key's murmur2
 * over all the topic's partitions; else round robin over the partitions that have a leader.
 */
export function keyHashPartitioner() {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }: PartitionerArgs): number => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    const { key } = message;
    if (key !== null && key !== undefined) {
      const bytes = typeof key === 'string' ? Buffer.from(key) : key;
      return (murmur2(bytes) & 0x7fffffff) % partitionMetadata.length;
    }
    const next = ((counters.get(topic) ?? randomInt(2 ** 32 - 1)) + 1) & 0x7fffffff;
    counters.set(topic, next);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    return available.length > 0 ? available[next % available.length]!.partitionId : next % partitionMetadata.length;
  };
}
