// The management use cases behind /account/webhooks: an account's endpoints, their secrets and
// their deliveries. Another account's endpoint (or an id that is not one) is not found. A Slack
// endpoint (kind slack) holds an incoming-webhook URL, answered masked, and receives the segment
// alerts only; it has no signing secret to show or rotate (one is stored all the same, unused).
import { randomUUID } from 'node:crypto';
import { SEGMENT_EVENT_TYPES, type WebhookEndpointKind } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import type { EndpointChanges, NewEndpoint } from './endpoint-input.js';
import type { DeliveryItem, EndpointStore, EndpointView } from './endpoint-store.js';
import type { WebhookEventType } from './effect-payload.js';
import { newSecret } from './signing.js';
import type { SecretBox } from './secret-box.js';
import { maskSlackUrl, parseSlackUrl } from './slack-url.js';
import { checkTarget, parseTargetUrl, type Resolve, type TargetPolicy } from './target-policy.js';

export interface ManageDeps {
  endpoints: EndpointStore;
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

async function allowedUrl(deps: ManageDeps, kind: WebhookEndpointKind, value: string): Promise<string> {
  const url = kind === 'slack' ? parseSlackUrl(value, deps.policy) : parseTargetUrl(value, deps.policy);
  await checkTarget(url, deps.policy, deps.resolve);
  return url.toString();
}

/** A Slack endpoint is sent the segment alerts only: they are what a Slack message is made for. */
function checkEvents(kind: WebhookEndpointKind, events: WebhookEventType[] | undefined): void {
  const segmentEvents: readonly string[] = SEGMENT_EVENT_TYPES;
  if (kind === 'slack' && events?.some((e) => !segmentEvents.includes(e)))
    throw new AppError('invalid_request', `a Slack endpoint receives ${SEGMENT_EVENT_TYPES.join(' and ')} only`);
}

/** The endpoint as answered: a Slack URL is a secret (whoever has it can post to the channel). */
const shown = <T extends EndpointView>(view: T): T => (view.kind === 'slack' ? { ...view, url: maskSlackUrl(view.url) } : view);

export async function createEndpoint(deps: ManageDeps, accountId: string, input: NewEndpoint): Promise<EndpointView & { secret?: string }> {
  checkEvents(input.kind, input.events);
  const url = await allowedUrl(deps, input.kind, input.url);
  const [id, secret] = [randomUUID(), newSecret()];
  const created = await deps.endpoints.insert(
    { id, accountId, kind: input.kind, url, events: input.events, secret: deps.secrets.seal(id, secret) },
    deps.maxEndpoints,
  );
  if (!created) throw new AppError('limit_reached', `an account has at most ${deps.maxEndpoints} webhook endpoints; delete one first`);
  return created.kind === 'slack' ? shown(created) : { ...created, secret };
}

export const listEndpoints = async (deps: ManageDeps, accountId: string) => (await deps.endpoints.list(accountId)).map(shown);

async function storedEndpoint(deps: ManageDeps, accountId: string, id: string): Promise<EndpointView> {
  if (!UUID.test(id)) throw notFound(id);
  return found(await deps.endpoints.find(accountId, id), id);
}

export async function getEndpoint(deps: ManageDeps, accountId: string, id: string): Promise<EndpointView> {
  return shown(await storedEndpoint(deps, accountId, id));
}

export async function updateEndpoint(deps: ManageDeps, accountId: string, id: string, changes: EndpointChanges): Promise<EndpointView> {
  const { kind } = await storedEndpoint(deps, accountId, id);
  checkEvents(kind, changes.events);
  const url = changes.url === undefined ? undefined : await allowedUrl(deps, kind, changes.url);
  return shown(found(await deps.endpoints.change(accountId, id, { ...changes, ...(url ? { url } : {}) }, deps.retryWindowMs), id));
}

export async function deleteEndpoint(deps: ManageDeps, accountId: string, id: string): Promise<void> {
  if (!UUID.test(id) || !(await deps.endpoints.remove(accountId, id))) throw notFound(id);
}

/** A new secret, returned once; the previous one keeps signing alongside it for the grace period. */
export async function rotateEndpointSecret(
  deps: ManageDeps,
  accountId: string,
  id: string,
): Promise<EndpointView & { secret: string; previousSecretExpiresAt: Date }> {
  const { kind } = await storedEndpoint(deps, accountId, id);
  if (kind === 'slack') throw new AppError('invalid_request', 'a Slack endpoint has no signing secret: Slack messages are not signed');
  const secret = newSecret();
  const graceUntil = new Date(Date.now() + deps.rotationGraceMs);
  const view = found(await deps.endpoints.rotateSecret(accountId, id, deps.secrets.seal(id, secret), graceUntil), id);
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
  const rows = await deps.endpoints.deliveryPage(id, { ...query, limit: query.limit + 1 });
  return cutPage(rows, query.limit, (last) => ({ at: last.createdAt, id: last.id }));
}
