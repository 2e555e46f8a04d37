// The Kafka topics Glimpse uses, read from their one definition (shared/messaging/src/topics.json);
// infra:up creates/fixes them with these partitions and configs.
'use strict';
const definitions = require('../../shared/messaging/src/topics.json');

/** `config` values are strings, exactly as Kafka reports them; it is the complete set of topic-level overrides. */
const TOPICS = Object.freeze(Object.values(definitions.topics).map((t) => Object.freeze({ ...t, config: Object.freeze({ ...t.config }) })));

/** Broker settings the topic configs rely on. */
const BROKER_SETTINGS = Object.freeze({ ...definitions.broker });

module.exports = { TOPICS, BROKER_SETTINGS };
