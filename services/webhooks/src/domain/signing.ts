// Standard Webhooks signing: secrets are `whsec_` + base64 of 32 random bytes; each attempt is
// signed over `<webhook-id>.<webhook-timestamp>.<body>` by the `standardwebhooks` package, with
// every secret that is current (two during a rotation's grace period, space-separated).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signDelivery(secrets: string[], id: string, at: Date, body: string): SignedHeaders {
  const signatures = secrets.map((s) => new Webhook(s).sign(id, at, body));
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatures.join(' ') };
}
