// The consumer group on visitors.segments: each segment alert (a member entering a segment, a
// segment's daily digest) becomes one delivery per enabled endpoint of the account subscribed to its
// type, webhook or Slack alike, with the same payload (a Slack endpoint's message is made from it
// when it is sent). The alert's eventId is the delivery's effect id: the visitors service publishes
// at least once and makes the same id on a repeat, so a repeat schedules nothing (unique endpoint
// and effect). Only the schedule is written here; sending is the dispatcher's.
import { createHash } from 'node:crypto';
import { TOPICS, segmentAlertSchema, type SegmentAlertMessage } from '@glimpse/messaging';
import { segmentAlertPayloadOf } from '../domain/segment-payload.js';
import { createEnqueueingConsumer, type SchedulingConsumerOptions } from './scheduling-consumer.js';

export type SegmentsConsumerOptions = SchedulingConsumerOptions;

/**
 * The ordering key of an alert's deliveries (prefixed, so never a person's or a company's key):
 * one member's entries to a segment reach an endpoint in order, and so do a segment's digests.
 */
export function segmentAlertKeyOf(message: SegmentAlertMessage): string {
  const of = message.type === 'segment.entered' ? `member:${message.member.key}` : 'digest';
  return createHash('sha256').update(`segment:${message.accountId}:${message.segmentId}:${of}`).digest('hex');
}

export function createSegmentsConsumer(options: SegmentsConsumerOptions) {
  return createEnqueueingConsumer(options, {
    topic: TOPICS.visitorsSegments,
    schema: segmentAlertSchema,
    metric: { name: 'glimpse_webhook_segments_scheduled_total', help: 'Deliveries scheduled from segment alerts (entries and digests)' },
    effectOf: (message) => ({
      accountId: message.accountId,
      effectId: message.eventId,
      personKey: segmentAlertKeyOf(message),
      type: message.type,
      payload: JSON.stringify(segmentAlertPayloadOf(message)),
    }),
  });
}
