// The gateway's clients of the other services' internal APIs, all with the same token and timeout.
import type { GatewayConfig } from './config.js';
import { createEnrichmentClient } from './data/enrichment-client.js';
import { createPlaybookClient } from './data/playbook-client.js';
import { createVisitorsClient } from './data/visitors-client.js';
import { createWebhooksClient } from './data/webhooks-client.js';

export function createServiceClients(config: GatewayConfig) {
  const common = { internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS };
  return {
    enrichment: createEnrichmentClient({ baseUrl: config.ENRICHMENT_URL, ...common }),
    playbooks: createPlaybookClient({ baseUrl: config.PLAYBOOK_URL, ...common }),
    webhooks: createWebhooksClient({ baseUrl: config.WEBHOOKS_URL, ...common }),
    visitors: createVisitorsClient({ baseUrl: config.VISITORS_URL, ...common }),
  };
}

export type ServiceClients = ReturnType<typeof createServiceClients>;
