// What the management API tests share: an account with a key allowed to manage it, and calls to
// /account/… through the gateway over HTTP.
import { randomUUID } from 'node:crypto';
import type { Scope } from '@glimpse/auth';
import { createTestAccount, createTestApiKey, request, testDb, type HttpResult } from '../../../test/support/stack';

export interface Manager {
  accountId: string;
  /** An event token of the account (for POST /events). */
  token: string;
  tokenId: string;
  /** An API key of the account with account:manage. */
  key: string;
  keyId: string;
}

export async function createManager(scopes: Scope[] = ['account:manage']): Promise<Manager> {
  const account = await createTestAccount('management test');
  const { id: keyId, key } = await createTestApiKey(account.accountId, scopes);
  return { ...account, key, keyId };
}

export interface Api {
  get(path: string): Promise<HttpResult>;
  post(path: string, body?: unknown): Promise<HttpResult>;
  patch(path: string, body: unknown): Promise<HttpResult>;
  del(path: string): Promise<HttpResult>;
}

/** Calls the gateway's management API with `key` (no Authorization header when undefined). */
export function api(baseUrl: string, key: string | undefined): Api {
  const auth: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
  const withBody = (method: string) => (path: string, body?: unknown) =>
    request(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    get: (path) => request(`${baseUrl}${path}`, { headers: auth }),
    post: withBody('POST'),
    patch: withBody('PATCH'),
    del: (path) => request(`${baseUrl}${path}`, { method: 'DELETE', headers: auth }),
  };
}

/** Puts names in the account's catalog as if they had been sent (the pipeline itself is tested elsewhere). */
export async function seedCatalog(accountId: string, names: string[], at = new Date()): Promise<void> {
  await testDb('playbook').eventName.createMany({ data: names.map((name) => ({ accountId, name, firstSeenAt: at, lastSeenAt: at, count: 1n })) });
}

export async function seedEnrollment(
  accountId: string,
  playbookId: string,
  { email, startedAt, status = 'active', startedBy = 'signed_up' }: { email: string; startedAt: Date; status?: 'active' | 'stopped'; startedBy?: string },
) {
  const stopped = status === 'stopped' ? { stoppedAt: new Date(startedAt.getTime() + 1000), stoppedBy: 'purchase', stopEventId: randomUUID() } : {};
  return testDb('playbook').enrollment.create({
    data: { accountId, playbookId, email, status, startedAt, startedBy, startEventId: randomUUID(), ...stopped },
  });
}

export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
