import type { Message } from 'kafkajs';
import { encodedSize, takeBatch, topicMessagesOf, type Waiting } from './batching-producer-batch';

const waiting = (value: string, { bytes = value.length, deadline = 10_000, topic = 't' } = {}): Waiting => ({ topic, message: { value }, bytes, deadline });
const names = (list: Waiting[]) => list.map((w) => String(w.message.value));
const limits = { maxMessages: 500, maxBytes: 1000, requestBudgetMs: 0, now: 0 };

describe('encodedSize', () => {
  it('when a message has a key, a value and headers, then their bytes (UTF-8) and the record framing are counted', () => {
    const bare = encodedSize({ value: null });
    expect(bare).toBeGreaterThan(0);
    expect(encodedSize({ value: 'abc' })).toBe(bare + 3);
    expect(encodedSize({ key: 'ü', value: Buffer.alloc(10) })).toBe(bare + 2 + 10);
    const header = encodedSize({ value: null, headers: { h: 'v' } }) - bare;
    expect(header).toBeGreaterThan(2);
    // A header with several values is several header records.
    expect(encodedSize({ value: null, headers: { h: ['v', Buffer.from('w')] } }) - bare).toBe(2 * header);
  });

  it('when a record batch is written by kafkajs, then no message takes more than its encodedSize', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: object) => { size(): number; buffer: Buffer };
    const messages: Message[] = [
      { value: 'x' },
      { key: 'account:person@example.com', value: 'y'.repeat(4096) },
      { key: Buffer.from('k'), value: 'ünïcödé 😀', headers: { 'trace-id': 'abc', many: ['1', '2', '3'] } },
    ];
    for (const m of messages) {
      const record = Record({ offsetDelta: 499, timestampDelta: 10_000, key: m.key ?? null, value: m.value, headers: m.headers ?? {} });
      expect(record.size()).toBeLessThanOrEqual(encodedSize(m));
    }
  });
});

describe('takeBatch', () => {
  it('when everything fits, then it all goes in one request, in order', () => {
    const queue = ['a', 'b', 'c'].map((v) => waiting(v, { bytes: 100 }));
    expect(takeBatch(queue, limits)).toEqual({ batch: queue, late: [], rest: [] });
  });

  it('when the bytes would pass the bound, then the request ends before the message that does not fit, and the rest keeps its order', () => {
    const queue = ['a', 'b', 'c', 'd', 'e'].map((v) => waiting(v, { bytes: 300 }));
    const first = takeBatch(queue, limits);
    expect([names(first.batch), names(first.rest)]).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    // Exactly at the bound still fits.
    expect(names(takeBatch(queue, { ...limits, maxBytes: 900 }).batch)).toEqual(['a', 'b', 'c']);
  });

  it('when a later message is small enough to fit, then it still waits behind the one that did not (no message overtakes an earlier one)', () => {
    const queue = [waiting('a', { bytes: 600 }), waiting('big', { bytes: 600 }), waiting('small', { bytes: 10 })];
    const { batch, rest } = takeBatch(queue, limits);
    expect([names(batch), names(rest)]).toEqual([['a'], ['big', 'small']]);
  });

  it('when one message is larger than the bound on its own, then it goes alone', () => {
    const queue = [waiting('huge', { bytes: 5000 }), waiting('b', { bytes: 10 })];
    const { batch, rest } = takeBatch(queue, limits);
    expect([names(batch), names(rest)]).toEqual([['huge'], ['b']]);
  });

  it('when the count bound is reached first, then the request ends there', () => {
    const queue = Array.from({ length: 5 }, (_, i) => waiting(String(i), { bytes: 1 }));
    const { batch, rest } = takeBatch(queue, { ...limits, maxMessages: 2 });
    expect([names(batch), names(rest)]).toEqual([
      ['0', '1'],
      ['2', '3', '4'],
    ]);
  });

  it('when sends have too little time left for the request budget, then they are taken out as late and do not count', () => {
    const queue = [waiting('late', { bytes: 900, deadline: 50 }), waiting('a', { bytes: 600 }), waiting('b', { bytes: 300 })];
    const { batch, late, rest } = takeBatch(queue, { ...limits, requestBudgetMs: 100 });
    expect([names(batch), names(late), names(rest)]).toEqual([['a', 'b'], ['late'], []]);
  });

  it('when the bound is met repeatedly, then taking request after request sends every message once, in order, each request within the bound', () => {
    const sizes = [120, 700, 50, 999, 1000, 1, 1, 400, 400, 400, 2500, 30];
    let queue = sizes.map((bytes, i) => waiting(String(i), { bytes }));
    const requests: string[][] = [];
    while (queue.length > 0) {
      const { batch, rest } = takeBatch(queue, limits);
      expect(batch.length).toBeGreaterThan(0);
      expect(batch.length === 1 || batch.reduce((sum, w) => sum + w.bytes, 0) <= limits.maxBytes).toBe(true);
      requests.push(names(batch));
      queue = rest;
    }
    expect(requests.flat()).toEqual(sizes.map((_, i) => String(i)));
    expect(requests).toEqual([['0', '1', '2'], ['3'], ['4'], ['5', '6', '7', '8'], ['9'], ['10'], ['11']]);
  });
});

describe('topicMessagesOf', () => {
  it('when a request holds several topics, then each topic lists its messages in the order they were sent', () => {
    const batch = [waiting('a1', { topic: 'a' }), waiting('b1', { topic: 'b' }), waiting('a2', { topic: 'a' })];
    expect(topicMessagesOf(batch)).toEqual([
      { topic: 'a', messages: [{ value: 'a1' }, { value: 'a2' }] },
      { topic: 'b', messages: [{ value: 'b1' }] },
    ]);
  });
});
