// Topic names and settings, from the one definition in topics.json (scripts/infra and deploy/ use it too).
import definitions from './topics.json';

export interface TopicDefinition {
  name: string;
  partitions: number;
  /** Topic-level overrides, as strings, exactly as Kafka reports them. */
  config: Record<string, string>;
}

type TopicId = keyof typeof definitions.topics;

export const TOPIC_DEFINITIONS: Readonly<Record<TopicId, TopicDefinition>> = definitions.topics;

/** Broker settings the topic configs rely on (the 24 h purge needs the retention check interval). */
export const BROKER_SETTINGS: Readonly<Record<string, string>> = definitions.broker;

export const TOPICS = {
  eventsInbound: definitions.topics.eventsInbound.name,
  eventsDeadLetter: definitions.topics.eventsDeadLetter.name,
  playbookEffects: definitions.topics.playbookEffects.name,
  accounts: definitions.topics.accounts.name,
  visitorsCollected: definitions.topics.visitorsCollected.name,
  visitorsDeadLetter: definitions.topics.visitorsDeadLetter.name,
  visitorsIdentified: definitions.topics.visitorsIdentified.name,
  /** A named company's first visit to a site in a window, for the webhooks service's company.visited. */
  visitorsCompanies: definitions.topics.visitorsCompanies.name,
  /** A visitor or company entering a segment, and each segment's daily digest, for the webhooks service's segment.entered, segment.digest and Slack alerts. */
  visitorsSegments: definitions.topics.visitorsSegments.name,
  /** The webhooks service's own: effects and identifications it could not read (its Kafka user writes no other dead-letter topic). */
  webhooksDeadLetter: definitions.topics.webhooksDeadLetter.name,
} as const;

/** Messages are keyed by account and person so one person's events stay in order. */
export function personKey(accountId: string, email: string): string {
  return `${accountId}:${email}`;
}

/** Collected messages are keyed by site and visitor so one visitor's page views stay in order. */
export function visitorKey(siteId: string, visitorId: string): string {
  return `${siteId}:${visitorId}`;
}
