import { parseInboundEvent } from './parse-inbound-event';

const valid = {
  eventId: '3f1c2a4e-8b7d-4c2a-9e1f-0a1b2c3d4e5f',
  accountId: '44a601aa-7e33-419d-825b-8f778462b51b',
  event: 'signed_up',
  email: 'a@example.com',
  properties: { plan: 'pro' },
  receivedAt: '2026-01-01T00:00:00.000Z',
};
const message = (value: string | null) => ({ value: value === null ? null : Buffer.from(value) });

describe('parseInboundEvent', () => {
  it('when the message is a valid event, then it is the event', () => {
    expect(parseInboundEvent(message(JSON.stringify(valid)))).toEqual(valid);
  });

  it.each([
    ['{', 'not JSON'],
    [null, 'not JSON'],
    ['', 'not JSON'],
  ])('when the value is %p, then it is invalid: %s', (value, reason) => {
    expect(parseInboundEvent(message(value))).toEqual({ invalid: reason });
  });

  it('when fields are wrong, then the reason names each field', () => {
    const parsed = parseInboundEvent(message(JSON.stringify({ ...valid, eventId: 'not-a-uuid', event: 'demo booked' })));
    expect(parsed).toEqual({ invalid: expect.stringMatching(/^eventId: .+; event: .+$/) });
  });
});
