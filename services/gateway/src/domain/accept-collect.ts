// Recording what the tag sent: every message on visitors.collected (acks=all) before the answer,
// keyed by site and visitor (a bot's by site). If Kafka cannot take them the tag is told to retry:
// its messages keep their ids, so the visitors service counts a retried one once.
import { AppError } from '@glimpse/errors';
import { KafkaUnavailableError, TOPICS, visitorKey, type BatchingProducer, type CollectedBot, type CollectedMessage } from '@glimpse/messaging';

export async function recordCollected(producer: BatchingProducer, messages: readonly (CollectedMessage | CollectedBot)[]): Promise<void> {
  try {
    await Promise.all(
      messages.map((m) =>
        producer.send(TOPICS.visitorsCollected, {
          key: m.type === 'bot' ? visitorKey(m.siteId, 'bot') : visitorKey(m.siteId, m.visitorId),
          value: JSON.stringify(m),
        }),
      ),
    );
  } catch (err) {
    const message =
      err instanceof KafkaUnavailableError && !err.handedOver
        ? 'the events could not be recorded right now; retry later'
        : 'Kafka did not confirm the events in time; retry later (a retried event is counted once)';
    throw new AppError('service_unavailable', message, { cause: err, headers: { 'Retry-After': '1' } });
  }
}
