// An erased person's tombstone holds a keyed hash of (account, email), never the email: enough to
// drop identifies of that person still in flight, useless to anyone without the key.
import { createHmac } from 'node:crypto';

export function erasureHash(key: string, accountId: string, email: string): string {
  return createHmac('sha256', key).update(`${accountId}|${email}`).digest('hex');
}
