import { inboundEventSchema } from '@glimpse/messaging';
import { eventIdFor } from './accept-event';

describe('eventIdFor', () => {
  it('when an Idempotency-Key is given, then every retry gets the same valid event id, distinct per account and key', () => {
    const id = eventIdFor('7c1f4c1e-7a61-4d5e-9a56-0d6f8c1b2a3e', 'order-42');
    expect(eventIdFor('7c1f4c1e-7a61-4d5e-9a56-0d6f8c1b2a3e', 'order-42')).toBe(id);
    expect(eventIdFor('7c1f4c1e-7a61-4d5e-9a56-0d6f8c1b2a3e', 'order-43')).not.toBe(id);
    expect(eventIdFor('11111111-7a61-4d5e-9a56-0d6f8c1b2a3e', 'order-42')).not.toBe(id);
    const message = { eventId: id, accountId: '7c1f4c1e-7a61-4d5e-9a56-0d6f8c1b2a3e', event: 'x', email: 'a@b.co', properties: {}, receivedAt: new Date().toISOString() };
    expect(inboundEventSchema.safeParse(message).success).toBe(true);
  });

  it('when no key is given, then each event gets a new id', () => {
    expect(eventIdFor('a', undefined)).not.toBe(eventIdFor('a', undefined));
  });
});
