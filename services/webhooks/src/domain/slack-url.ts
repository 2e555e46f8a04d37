// A Slack endpoint's URL: an incoming webhook, https://hooks.slack.com/services/<team>/<bot>/<token>.
// Whoever holds it can post into the channel, so it is a secret: answered masked (its origin and
// the last characters, enough to tell two apart), never logged. Where local receivers are allowed
// (WEBHOOKS_ALLOW_LOOPBACK, the tests'), a loopback URL stands in for Slack's host.
import { AppError } from '@glimpse/errors';
import { parseTargetUrl, type TargetPolicy } from './target-policy.js';

export const SLACK_HOST = 'hooks.slack.com';
const SLACK_PATH = /^\/services\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,128}$/;

export const NOT_A_SLACK_URL = `url must be a Slack incoming-webhook URL (https://${SLACK_HOST}/services/…)`;

function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The URL as it will be stored, or a 400 (the refusal never repeats the URL). */
export function parseSlackUrl(value: string, policy: Pick<TargetPolicy, 'requireHttps' | 'allowLoopback'>): URL {
  let url: URL;
  try {
    url = parseTargetUrl(value, policy);
  } catch {
    throw new AppError('invalid_request', NOT_A_SLACK_URL);
  }
  if (policy.allowLoopback && isLoopback(url)) return url;
  if (url.protocol !== 'https:' || url.hostname !== SLACK_HOST || url.port !== '' || url.search !== '' || !SLACK_PATH.test(url.pathname)) {
    throw new AppError('invalid_request', NOT_A_SLACK_URL);
  }
  return url;
}

/** The URL as answers show it: the origin and the last four characters of the path. */
export function maskSlackUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return '…';
  }
  const path = url.pathname;
  return `${url.origin}/…${path.length > 12 ? path.slice(-4) : ''}`;
}
