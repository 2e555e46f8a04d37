// The management use cases behind /account/webhooks: an account's endpoints, their secrets and
// their deliveries. Another account's endpoint (or an id that is not one) is not found.
import { randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import * as endpoints from '../data/endpoint-repository.js';
import { findDeliveryPage, type DeliveryItem } from '../data/delivery-repository.js';
import type { Db } from '@glimpse/db/webhooks';
import type { EndpointChanges, NewEndpoint } from './endpoint-input.js';
import { newSecret } from './signing.js';
import type { SecretBox } from './secret-box.js';
import { checkTarget, parseTargetUrl, type Resolve, type TargetPolicy } from './target-policy.js';

export interface ManageDeps {
  db: Db;
  policy: TargetPolicy;
  resolve: Resolve;
  /** Seals the signing secrets for storage (WEBHOOKS_SECRET_KEY). */
  secrets: SecretBox;
  maxEndpoints: number;
  retryWindowMs: number;
  rotationGraceMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notFound = (id: string) => new AppError('not_found', `webhook endpoint ${id} does not exist`);

function found<T>(value: T | null, id: string): T {
  if (!value) throw notFound(id);
  return value;
}

async function allowedUrl(deps: ManageDeps, value: string): Promise<string> {
  const url = parseTargetUrl(value, deps.policy);
  await checkTarget(url, deps.policy, deps.resolve);
  return url.toString();
}

export async function createEndpoint(deps: ManageDeps, accountId: string, input: NewEndpoint): Promise<endpoints.EndpointView & { secret: string }> {
  const url = await allowedUrl(deps, input.url);
  const [id, secret] = [randomUUID(), newSecret()];
  const created = await endpoints.insertEndpoint(
    deps.db,
    { id, accountId, url, events: input.events, secret: deps.secrets.seal(id, secret) },
    deps.maxEndpoints,
  );
  if (!created) throw new AppError('limit_reached', `an account has at most ${deps.maxEndpoints} webhook endpoints; delete one first`);
  return { ...created, secret };
}

export const listEndpoints = (deps: ManageDeps, accountId: string) => endpoints.listEndpoints(deps.db, accountId);

export async function getEndpoint(deps: ManageDeps, accountId: string, id: string): Promise<endpoints.EndpointView> {
  if (!UUID.test(id)) throw notFound(id);
  return found(await endpoints.findEndpoint(deps.db, accountId, id), id);
}

export async function updateEndpoint(deps: ManageDeps, accountId: string, id: string, changes: EndpointChanges): Promise<endpoints.EndpointView> {
  if (!UUID.test(id)) throw notFound(id);
  await getEndpoint(deps, accountId, id);
  const url = changes.url === undefined ? undefined : await allowedUrl(deps, changes.url);
  return found(await endpoints.changeEndpoint(deps.db, accountId, id, { ...changes, ...(url ? { url } : {}) }, deps.retryWindowMs), id);
}

export async function deleteEndpoint(deps: ManageDeps, accountId: string, id: string): Promise<void> {
  if (!UUID.test(id) || !(await endpoints.deleteEndpoint(deps.db, accountId, id))) throw notFound(id);
}

/** A new secret, returned once; the previous one keeps signing alongside it for the grace period. */
export async function rotateEndpointSecret(
  deps: ManageDeps,
  accountId: string,
  id: string,
): Promise<endpoints.EndpointView & { secret: string; previousSecretExpiresAt: Date }> {
  if (!UUID.test(id)) throw notFound(id);
  const secret = newSecret();
  const graceUntil = new Date(Date.now() + deps.rotationGraceMs);
  const view = found(await endpoints.rotateSecret(deps.db, accountId, id, deps.secrets.seal(id, secret), graceUntil), id);
  return { ...view, secret, previousSecretExpiresAt: graceUntil };
}

export interface DeliveryPageQuery {
  limit: number;
  after: { at: Date; id: string } | null;
  status?: 'pending' | 'delivered' | 'failed';
}

export async function deliveryPage(
  deps: ManageDeps,
  accountId: string,
  id: string,
  query: DeliveryPageQuery,
): Promise<{ items: DeliveryItem[]; next: { at: Date; id: string } | null }> {
  await getEndpoint(deps, accountId, id);
  const rows = await findDeliveryPage(deps.db, id, { ...query, limit: query.limit + 1 });
  return cutPage(rows, query.limit, (last) => ({ at: last.createdAt, id: last.id }));
}
