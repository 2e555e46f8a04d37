// The consumer group on visitors.companies: the shared batch consumer (createBatchConsumer in
// @glimpse/messaging: chunks, bisecting, dead letters, lag) scheduling company.visited deliveries a
// chunk at a time, so enrichment is asked once per chunk for every domain in it. Only the schedule
// is written here; sending is the dispatcher's. Enrichment or Postgres not answering is an outage:
// the chunk is retried whole until they answer, never dead-lettered, so no visit is dropped (as the
// identified consumer leaves its message uncommitted). Messages that are not the schema, or that
// fail alone while both answer, go to webhooks.dlq.
import type { KafkaMessage } from 'kafkajs';
import { Counter } from 'prom-client';
import { postgresProbe } from '@glimpse/db';
import { dependencyFailure } from '@glimpse/errors';
import {
  TOPICS,
  companyVisitedSchema,
  createBatchConsumer,
  outageCheck,
  type BatchConsumer,
  type CompanyVisitedMessage,
  type ParseResult,
} from '@glimpse/messaging';
import { companyKeyOf, enqueueEffects, subscribedAccounts } from '../data/delivery-repository.js';
import { EnrichmentUnavailableError } from '../data/enrichment-client.js';
import { scheduleCompanyVisits, type CompanyDeliveryStore, type CompanyDirectory } from '../domain/schedule-companies.js';
import type { SchedulingConsumerOptions } from './scheduling-consumer.js';

export interface CompaniesConsumerOptions extends SchedulingConsumerOptions {
  companies: CompanyDirectory;
}

/** Partitions scheduled at once, as the other scheduling consumers. */
const CONCURRENCY = 3;
/** Messages per chunk: one lookup names at most this many domains (well under MAX_LOOKUP_DOMAINS). */
const MAX_BATCH = 500;

export function parseCompanyVisited(message: KafkaMessage): ParseResult<CompanyVisitedMessage> {
  try {
    const parsed = companyVisitedSchema.safeParse(JSON.parse(message.value?.toString('utf8') ?? ''));
    return parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  } catch {
    return { invalid: 'not JSON' };
  }
}

export function createCompaniesConsumer({ companies, db, retryWindowMs, onScheduled, ...options }: CompaniesConsumerOptions): BatchConsumer {
  const scheduled = new Counter({
    name: 'glimpse_webhook_companies_scheduled_total',
    help: 'Deliveries scheduled from companies visiting sites',
    registers: [options.registry],
  });
  const store: CompanyDeliveryStore = {
    subscribedAccounts: (accountIds, type) => subscribedAccounts(db, accountIds, type),
    enqueue: (deliveries) =>
      enqueueEffects(
        db,
        deliveries.map(({ accountId, eventId, siteId, company, type, payload, publishedAt }) => ({
          accountId,
          effectId: eventId,
          personKey: companyKeyOf(accountId, siteId, company),
          type,
          payload,
          publishedAt,
        })),
        retryWindowMs,
      ),
  };
  return createBatchConsumer<CompanyVisitedMessage>({
    ...options,
    concurrency: CONCURRENCY,
    maxBatch: MAX_BATCH,
    topic: TOPICS.visitorsCompanies,
    // The webhooks service's own dead-letter topic: its Kafka user may write no other service's.
    deadLetterTopic: TOPICS.webhooksDeadLetter,
    parse: parseCompanyVisited,
    async apply(items) {
      // A message's deliveries go to the endpoints that existed at its append time (enqueueEffect).
      const visits = items.map(({ value, message }) => ({ message: value, publishedAt: new Date(Number(message.timestamp)) }));
      const added = await scheduleCompanyVisits(visits, { store, companies });
      if (added > 0) {
        scheduled.inc(added);
        onScheduled?.();
      }
    },
    isOutage: outageCheck({ known: (err) => err instanceof EnrichmentUnavailableError || dependencyFailure(err) !== null, probe: postgresProbe(db) }),
  });
}
