// The gateway's clients of the other services' internal APIs, all with the same token and timeout.
import type { GatewayConfig } from './config.js';
import { createImportForwarder, type ImportForwarder } from './data/import-forwarder.js';
import { createEnrichmentClient, type EnrichmentClient } from './data/enrichment-client.js';
import { createPlaybookClient, type PlaybookClient } from './data/playbook-client.js';
import { createVisitorsClient, type VisitorsClient } from './data/visitors-client.js';
import { createWebhooksClient, type WebhooksClient } from './data/webhooks-client.js';

/** The gateway's clients of the other services, handed on together to the routes that use them (and closed together at stop). */
export type ServiceClients = {
  /** Lookups and usage. */
  enrichment: EnrichmentClient;
  /** Playbooks, enrollments and the catalog of the management API. */
  playbooks: PlaybookClient;
  /** The webhooks service: endpoints and deliveries of the management API. */
  webhooks: WebhooksClient;
  /** The visitors service: a site's traffic, the visitors list, the tag's half of the details lookup, erasure. */
  visitors: VisitorsClient;
  /** The operator's imports, streamed to the enrichment and visitors services on pools of their own. */
  imports: ImportForwarder;
};

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const common = { internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS };
  return {
    enrichment: createEnrichmentClient({ baseUrl: config.ENRICHMENT_URL, ...common }),
    playbooks: createPlaybookClient({ baseUrl: config.PLAYBOOK_URL, ...common }),
    webhooks: createWebhooksClient({ baseUrl: config.WEBHOOKS_URL, ...common }),
    visitors: createVisitorsClient({ baseUrl: config.VISITORS_URL, ...common }),
    imports: createImportForwarder({
      enrichment: { baseUrl: config.ENRICHMENT_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS },
      visitors: { baseUrl: config.VISITORS_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS },
    }),
  };
}
