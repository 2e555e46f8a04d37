export { TOPICS, TOPIC_DEFINITIONS, BROKER_SETTINGS, personKey } from './topics.js';
export type { TopicDefinition } from './topics.js';
export * from './schemas.js';
export { createKafka, retryWithin } from './kafka.js';
export { createBatchingProducer } from './batching-producer.js';
export type { BatchingProducer, BatchingProducerOptions } from './batching-producer.js';
export { createConsumerRunner } from './consumer-runner.js';
export type { ConsumerRunner, ConsumerRunnerOptions } from './consumer-runner.js';
