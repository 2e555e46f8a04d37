// Which waiting sends go into the next produce request, and how large a message is on the wire.
//
// A request is bounded by bytes as well as by count: the broker refuses a partition's record batch
// over message.max.bytes (1 MB by default) with MESSAGE_TOO_LARGE, and kafkajs (unlike the Java
// client's max.request.size) never splits one. Bounding the whole request keeps every partition's
// batch in it under the limit, whichever partitions its keys hash to.
import type { IHeaders, Message, TopicMessages } from 'kafkajs';

/**
 * A record's worst-case framing in a v2 record batch: length, attributes, timestamp delta, offset
 * delta, key length, value length and header count, each a varint (at most 5 bytes, 10 for the
 * timestamp delta).
 */
const RECORD_OVERHEAD_BYTES = 5 + 1 + 10 + 5 + 5 + 5 + 5;
/** A header's key length and value length varints. */
const HEADER_OVERHEAD_BYTES = 5 + 5;

const byteLength = (data: Buffer | string | null | undefined): number =>
  data === null || data === undefined ? 0 : typeof data === 'string' ? Buffer.byteLength(data) : data.length;

function headersSize(headers: IHeaders | undefined): number {
  if (!headers) return 0;
  let size = 0;
  for (const [key, value] of Object.entries(headers)) {
    // kafkajs writes one header record per value of an array.
    for (const one of Array.isArray(value) ? value : [value]) size += HEADER_OVERHEAD_BYTES + Buffer.byteLength(key) + byteLength(one);
  }
  return size;
}

/** An upper bound of the bytes a message takes in a record batch (uncompressed, as this producer sends). */
export function encodedSize(message: Message): number {
  return RECORD_OVERHEAD_BYTES + byteLength(message.key) + byteLength(message.value) + headersSize(message.headers);
}

export interface Waiting {
  topic: string;
  message: Message;
  /** encodedSize(message), computed once when it was sent. */
  bytes: number;
  deadline: number;
}

export interface BatchLimits {
  maxMessages: number;
  maxBytes: number;
  /** A send with less than this left before its deadline is too late to hand over (0: no check). */
  requestBudgetMs: number;
  now: number;
}

export interface TakenBatch<T> {
  /** What goes into this request, in the order it was sent. */
  batch: T[];
  /** Too late to be sure kafkajs is done before their senders are answered: they fail unsent. */
  late: T[];
  /** What waits for the next request, in order. */
  rest: T[];
}

/**
 * The longest prefix of `queue` within the limits (late sends taken out of it): the rest waits, in
 * order, so that no message overtakes an earlier one of its key. A message over `maxBytes` on its
 * own goes alone, and the broker decides (its limit is above ours).
 */
export function takeBatch<T extends Waiting>(queue: readonly T[], { maxMessages, maxBytes, requestBudgetMs, now }: BatchLimits): TakenBatch<T> {
  const batch: T[] = [];
  const late: T[] = [];
  let bytes = 0;
  let i = 0;
  for (; i < queue.length; i += 1) {
    const p = queue[i]!;
    if (requestBudgetMs > 0 && p.deadline - now < requestBudgetMs) {
      late.push(p);
      continue;
    }
    if (batch.length >= maxMessages || (batch.length > 0 && bytes + p.bytes > maxBytes)) break;
    batch.push(p);
    bytes += p.bytes;
  }
  return { batch, late, rest: queue.slice(i) };
}

/** The request's messages grouped by topic, each topic's in the order they were sent. */
export function topicMessagesOf(batch: readonly Waiting[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const p of batch) {
    const list = byTopic.get(p.topic);
    if (list) list.push(p.message);
    else byTopic.set(p.topic, [p.message]);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
