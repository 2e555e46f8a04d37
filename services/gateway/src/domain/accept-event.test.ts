import { inboundEventSchema } from '@glimpse/messaging';
import { eventFingerprint, eventIdFor } from './accept-event';

const account = '7c1f4c1e-7a61-4d5e-9a56-0d6f8c1b2a3e';

describe('eventIdFor', () => {
  it('when an Idempotency-Key is given, then every retry of the same event gets the same valid id, distinct per account, key and event', () => {
    const fp = eventFingerprint({ event: 'order_placed', email: 'a@b.co' });
    const id = eventIdFor(account, 'order-42', fp);
    expect(eventIdFor(account, 'order-42', fp)).toBe(id);
    expect(eventIdFor(account, 'order-43', fp)).not.toBe(id);
    expect(eventIdFor('11111111-7a61-4d5e-9a56-0d6f8c1b2a3e', 'order-42', fp)).not.toBe(id);
    expect(eventIdFor(account, 'order-42', eventFingerprint({ event: 'order_placed', email: 'c@d.co' }))).not.toBe(id);
    const message = { eventId: id, accountId: account, event: 'x', email: 'a@b.co', properties: {}, receivedAt: new Date().toISOString() };
    expect(inboundEventSchema.safeParse(message).success).toBe(true);
  });

  it('when no key is given, then each event gets a new id', () => {
    expect(eventIdFor('a', undefined)).not.toBe(eventIdFor('a', undefined));
  });
});

describe('eventFingerprint', () => {
  it('when the same event is sent with its properties in another order, then the fingerprint is the same; any other difference changes it', () => {
    const fp = eventFingerprint({ event: 'e', email: 'a@b.co', properties: { plan: 'pro', seats: 3 } });
    expect(eventFingerprint({ event: 'e', email: 'a@b.co', properties: { seats: 3, plan: 'pro' } })).toBe(fp);
    expect(eventFingerprint({ event: 'e', email: 'a@b.co', properties: { seats: '3', plan: 'pro' } })).not.toBe(fp);
    expect(eventFingerprint({ event: 'f', email: 'a@b.co', properties: { plan: 'pro', seats: 3 } })).not.toBe(fp);
    expect(eventFingerprint({ event: 'e', email: 'a@b.co' })).toBe(eventFingerprint({ event: 'e', email: 'a@b.co', properties: {} }));
  });
});
