// Collected messages as the gateway produces them, for the visitors service's integration tests.
import { randomBytes, randomUUID } from 'node:crypto';
import { TOPICS, createBatchingProducer, visitorKey, type BatchingProducer, type Collected, type CollectedMessage } from '@glimpse/messaging';
import { testKafka } from '../../../test/support/kafka-helpers';

export const newVisitorId = () => randomBytes(12).toString('hex');
export const newMessageId = () => randomBytes(9).toString('base64url');

export interface Site {
  accountId: string;
  siteId: string;
}

export const newSite = (accountId: string = randomUUID()): Site => ({ accountId, siteId: randomUUID() });

type Body<T extends CollectedMessage['type']> = Omit<
  Extract<CollectedMessage, { type: T }>,
  'id' | 'accountId' | 'siteId' | 'visitorId' | 'receivedAt' | 'type'
>;

export function message<T extends CollectedMessage['type']>(site: Site, visitorId: string, type: T, body: Body<T>, receivedAt = new Date()): CollectedMessage {
  return { id: newMessageId(), ...site, visitorId, receivedAt: receivedAt.toISOString(), type, ...body } as unknown as CollectedMessage;
}

let producer: BatchingProducer | undefined;
async function theProducer(): Promise<BatchingProducer> {
  if (!producer) {
    // A long send timeout: thousands of messages on a busy 2-core machine take more than the gateway's 5 s.
    producer = createBatchingProducer({ kafka: testKafka(), maxBatch: 500, sendTimeoutMs: 60_000 });
    await producer.connect();
  }
  return producer;
}

export async function closeProducer(): Promise<void> {
  await producer?.disconnect();
  producer = undefined;
}

/** Produces to visitors.collected keyed as the gateway keys them, in order per visitor. */
export async function produceCollected(messages: readonly Collected[]): Promise<void> {
  const p = await theProducer();
  // Slice by slice: each is acknowledged before the next is handed over, so a visitor's messages keep their order.
  for (let i = 0; i < messages.length; i += 500) {
    const slice = messages.slice(i, i + 500);
    await Promise.all(
      slice.map((m) => p.send(TOPICS.visitorsCollected, { key: visitorKey(m.siteId, m.type === 'bot' ? 'bot' : m.visitorId), value: JSON.stringify(m) })),
    );
  }
}
