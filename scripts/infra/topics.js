// The Kafka topics Glimpse uses, with partitions and topic configs; infra:up creates/fixes them, app code imports the names.
'use strict';

const TOPIC = Object.freeze({
  EVENTS_INBOUND: 'events.inbound',
  PLAYBOOK_EFFECTS: 'playbook.effects',
  EVENTS_INBOUND_DLQ: 'events.inbound.dlq',
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** `config` values are strings, exactly as Kafka reports them; it is the complete set of topic-level overrides. */
const TOPICS = Object.freeze([
  { name: TOPIC.EVENTS_INBOUND, partitions: 3, config: { 'retention.ms': String(DAY_MS) } },
  { name: TOPIC.PLAYBOOK_EFFECTS, partitions: 3, config: { 'retention.ms': String(7 * DAY_MS) } },
  // Holds raw inbound events that failed processing, so same retention as events.inbound.
  { name: TOPIC.EVENTS_INBOUND_DLQ, partitions: 1, config: { 'retention.ms': String(DAY_MS) } },
].map((t) => Object.freeze({ ...t, config: Object.freeze(t.config) })));

module.exports = { TOPIC, TOPICS };
