// The enrichment service's person lookup (POST /internal/persons/details, not billed), over a small
// keep-alive pool, proving the caller with the webhooks service's own internal token.
import { Pool } from 'undici';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { personDetailsOf, type PersonDetails } from '../domain/identified-payload.js';
import type { PersonDirectory } from '../domain/schedule-identified.js';

export interface EnrichmentClient extends PersonDirectory {
  close(): Promise<void>;
}

export function createEnrichmentClient({ baseUrl, internalToken, timeoutMs }: { baseUrl: string; internalToken: string; timeoutMs: number }): EnrichmentClient {
  const pool = new Pool(baseUrl, { connections: 8, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return {
    async details(accountId, email): Promise<PersonDetails | null> {
      const res = await pool.request({
        method: 'POST',
        path: '/internal/persons/details',
        headers: { [INTERNAL_HEADERS.token]: internalToken, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      const text = await res.body.text();
      if (res.statusCode === 404) return null;
      // Never the email in the message: it ends in logs.
      if (res.statusCode !== 200) throw new Error(`enrichment answered ${res.statusCode} to a person lookup`);
      return personDetailsOf((JSON.parse(text) as { details?: unknown }).details);
    },
    close: () => pool.close(),
  };
}
