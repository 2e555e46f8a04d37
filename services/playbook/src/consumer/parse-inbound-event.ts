// A message of events.inbound as the consumer takes it: the gateway's event, validated by the shared
// schema. What is not JSON or not an event is { invalid } and goes to the dead-letter topic with the reason.
import type { KafkaMessage } from 'kafkajs';
import { inboundEventSchema, type InboundEvent, type ParseResult } from '@glimpse/messaging';

export function parseInboundEvent(message: Pick<KafkaMessage, 'value'>): ParseResult<InboundEvent> {
  try {
    const parsed = inboundEventSchema.safeParse(JSON.parse(message.value?.toString('utf8') ?? ''));
    return parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => i.path.join('.') + ': ' + i.message).join('; ') };
  } catch {
    return { invalid: 'not JSON' };
  }
}
