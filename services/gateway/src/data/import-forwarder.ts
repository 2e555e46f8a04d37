// Streams an operator's import file to the service that owns the data (enrichment: persons,
// companies and visitors; visitors: IP ranges and the City database of locations), proving the gateway with the internal token, and hands back the
// service's answer (its report, or its error) as it came. Its own pools: an import holds its
// connection while the service writes, which must not take a lookup's place in the shared pools.
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { AppError } from '@glimpse/errors';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { upstreamResponse, type ServiceEndpoint, type UpstreamResponse } from './internal-service.js';

export type ImportKind = 'persons' | 'companies' | 'visitors' | 'ip-ranges' | 'locations';

/** The service each import is written by, and its internal route. */
const ROUTES: Record<ImportKind, { service: 'enrichment' | 'visitors'; path: string }> = {
  persons: { service: 'enrichment', path: '/internal/imports/persons' },
  companies: { service: 'enrichment', path: '/internal/imports/companies' },
  visitors: { service: 'enrichment', path: '/internal/imports/visitors' },
  'ip-ranges': { service: 'visitors', path: '/internal/imports/ip-ranges' },
  locations: { service: 'visitors', path: '/internal/imports/locations' },
};

// The internal guard names an account on every call; persons, companies and IP data belong to the whole
// installation, so they name the nil UUID, which no account has.
export const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

export interface ImportUpload {
  body: Readable;
  /** The query string the service reads its options from (region, dataset, format…), without "?". */
  query: string;
  contentType?: string;
  accountId?: string;
}

export interface ImportForwarder {
  forward(kind: ImportKind, upload: ImportUpload): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export interface ImportForwarderOptions {
  enrichment: ServiceEndpoint;
  visitors: ServiceEndpoint;
  /** How long the service may take to answer once the file is sent (it answers when the import is written). */
  answerTimeoutMs?: number;
}

export function createImportForwarder({ enrichment, visitors, answerTimeoutMs = 10 * 60_000 }: ImportForwarderOptions): ImportForwarder {
  const endpoints = { enrichment, visitors };
  const pools = new Map<'enrichment' | 'visitors', Pool>();
  const poolOf = (service: 'enrichment' | 'visitors') => {
    let pool = pools.get(service);
    if (!pool) {
      pool = new Pool(endpoints[service].baseUrl, { connections: 4, headersTimeout: answerTimeoutMs, bodyTimeout: answerTimeoutMs });
      pools.set(service, pool);
    }
    return pool;
  };
  return {
    async forward(kind, { body, query, contentType, accountId = NO_ACCOUNT }) {
      const { service, path } = ROUTES[kind];
      try {
        const res = await poolOf(service).request({
          method: 'POST',
          path: query ? `${path}?${query}` : path,
          headers: {
            [INTERNAL_HEADERS.token]: endpoints[service].internalToken,
            [INTERNAL_HEADERS.account]: accountId,
            'content-type': contentType ?? 'application/octet-stream',
          },
          body,
        });
        return upstreamResponse(res.statusCode, await res.body.text());
      } catch (err) {
        // The upload's own refusal (too large, cut off) is the client's answer, not an outage.
        if (err instanceof AppError) throw err;
        if (body.errored instanceof AppError) throw body.errored;
        throw new AppError('service_unavailable', `the ${service} service is unavailable; retry the import later`, {
          cause: err,
          headers: { 'Retry-After': '1' },
        });
      }
    },
    close: async () => {
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}
