// Kafka helpers for benchmarks: a consumer group that starts at the topic's end (so a run never
// replays the backlog earlier runs and tests left on the shared broker), and its lag.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

function benchKafka(brokers) {
  return new Kafka({ clientId: 'glimpse-bench', brokers, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 } });
}

/** Commits the topic's current end offsets for `groupId` (a new, empty group), then leaves it. */
async function startGroupAtEnd({ brokers, groupId, topic }) {
  const kafka = benchKafka(brokers);
  const admin = kafka.admin();
  await admin.connect();
  let ends;
  try {
    ends = await admin.fetchTopicOffsets(topic);
  } finally {
    await admin.disconnect();
  }
  // admin.setOffsets would do too, but its internal consumer sits out a 5 s fetch wait.
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 50, sessionTimeout: 6000, heartbeatInterval: 1000 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: false });
    const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    await consumer.run({ autoCommit: false, eachMessage: async () => undefined });
    await joined;
    await consumer.commitOffsets(ends.map((p) => ({ topic, partition: p.partition, offset: p.high })));
  } finally {
    await consumer.disconnect();
  }
}

/** Lag of a group on a topic: high watermark minus committed offset, summed over partitions. */
function createLagProbe({ brokers, groupId, topic }) {
  const admin = benchKafka(brokers).admin();
  let connected;
  return {
    async lag() {
      connected ??= admin.connect();
      await connected;
      const [high, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
      const byPartition = new Map((committed ? committed.partitions : []).map((p) => [p.partition, Number(p.offset)]));
      return high.reduce((sum, p) => {
        const done = byPartition.get(p.partition) ?? -1;
        // -1: nothing committed on that partition yet, so everything from the low mark is pending.
        return sum + Number(p.high) - (done < 0 ? Number(p.low) : done);
      }, 0);
    },
    async close() {
      if (connected)
        await connected.then(
          () => admin.disconnect(),
          () => {},
        );
    },
  };
}

module.exports = { startGroupAtEnd, createLagProbe };
