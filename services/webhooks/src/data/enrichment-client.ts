// The enrichment service's lookups, over a small keep-alive pool, proving the caller with the
// webhooks service's own internal token: a person's details (POST /internal/persons/details, billed
// once per person per account per month) and companies by domain (POST /internal/companies/lookup, unbilled).
import { Pool } from 'undici';
import { companyRecordSchema, type CompanyRecord } from '@glimpse/api';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { personDetailsOf, type PersonDetails } from '../domain/identified-payload.js';
import type { CompanyDirectory } from '../domain/schedule-companies.js';
import type { PersonDirectory } from '../domain/schedule-identified.js';

export interface EnrichmentClient extends PersonDirectory, CompanyDirectory {
  close(): Promise<void>;
}

/** Enrichment did not answer a lookup (down, too slow, or an answer other than the one expected): retry later. */
export class EnrichmentUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EnrichmentUnavailableError';
  }
}

// Fields enrichment may add later are let through (the payload picks its own).
const companiesAnswer = companyRecordSchema.loose().array();

export function createEnrichmentClient({ baseUrl, internalToken, timeoutMs }: { baseUrl: string; internalToken: string; timeoutMs: number }): EnrichmentClient {
  const pool = new Pool(baseUrl, { connections: 8, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const post = (path: string, accountId: string, body: unknown) =>
    pool.request({
      method: 'POST',
      path,
      headers: { [INTERNAL_HEADERS.token]: internalToken, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return {
    async details(accountId, email): Promise<PersonDetails | null> {
      // Billed as an enrichment, once per person per month; not disclosed without credits.
      const res = await post('/internal/persons/details', accountId, { email, billable: true });
      const text = await res.body.text();
      if (res.statusCode === 404) return null;
      // Never the email in the message: it ends in logs.
      if (res.statusCode !== 200) throw new Error(`enrichment answered ${res.statusCode} to a person lookup`);
      const answer = JSON.parse(text) as { disclosed?: unknown; details?: unknown };
      return answer.disclosed === true ? personDetailsOf(answer.details) : null;
    },
    async lookup(domains, accountId): Promise<CompanyRecord[]> {
      try {
        const res = await post('/internal/companies/lookup', accountId, { domains });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new EnrichmentUnavailableError(`enrichment answered ${res.statusCode} to a companies lookup`);
        return companiesAnswer.parse((JSON.parse(text) as { items?: unknown }).items);
      } catch (err) {
        throw err instanceof EnrichmentUnavailableError ? err : new EnrichmentUnavailableError('the companies lookup failed', { cause: err });
      }
    },
    close: () => pool.close(),
  };
}
