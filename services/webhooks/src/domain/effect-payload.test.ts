import { enrollmentPayloadSchema } from '@glimpse/api';
import { eventTypeOf, payloadOf } from './effect-payload';
import { newSecret, signDelivery } from './signing';
import { Webhook } from 'standardwebhooks';

const effect = {
  effectId: '6f1c1a52-6f0e-4c4e-9a53-7c5c1d0d2b11',
  eventId: '0b0f6a1e-8d8b-4a39-8c55-4d0a3f2f6a10',
  accountId: '9a7e4a36-2f33-4f4c-9f0c-1d3b7f3b0c21',
  playbookId: '3c2d1e0f-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  email: 'ada@example.com',
  action: 'stopped' as const,
  at: '2026-11-23T18:00:00.000Z',
};

describe('webhook payloads', () => {
  it('when an effect is started or stopped, then its type is enrollment.started or enrollment.stopped', () => {
    expect(eventTypeOf({ action: 'started' })).toBe('enrollment.started');
    expect(eventTypeOf({ action: 'stopped' })).toBe('enrollment.stopped');
  });

  it('when an effect becomes a payload, then it carries who, which playbook, what and when, and not the account', () => {
    expect(payloadOf(effect)).toEqual({
      type: 'enrollment.stopped',
      timestamp: effect.at,
      data: { effectId: effect.effectId, eventId: effect.eventId, playbookId: effect.playbookId, email: effect.email, at: effect.at },
    });
  });

  it("when a body is built, then it is the API's EnrollmentPayload (the document's enrollment webhooks)", () => {
    for (const e of [effect, { ...effect, action: 'started' as const }, { ...effect, cause: 'erased' as const }]) {
      expect(enrollmentPayloadSchema.safeParse(payloadOf(e)).error).toBeUndefined();
    }
  });

  it("when a stop was made by a suppression, then the payload says so as its reason; an event's stop has none", () => {
    expect(payloadOf({ ...effect, cause: 'suppressed' }).data).toEqual({ ...payloadOf(effect).data, reason: 'suppressed' });
    expect(payloadOf(effect).data).not.toHaveProperty('reason');
  });

  it('when a delivery is signed with two secrets, then the standardwebhooks verifier accepts it with either', () => {
    const [a, b] = [newSecret(), newSecret()];
    const body = JSON.stringify(payloadOf(effect));
    const headers = signDelivery([a, b], effect.effectId, new Date(), body);
    expect(headers['webhook-id']).toBe(effect.effectId);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [a, b]) expect(new Webhook(secret).verify(body, { ...headers })).toEqual(payloadOf(effect));
    expect(() => new Webhook(newSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(a).verify(body.replace('ada', 'eve'), { ...headers })).toThrow();
  });
});
