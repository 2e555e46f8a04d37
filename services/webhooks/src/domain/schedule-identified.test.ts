import { randomUUID } from 'node:crypto';
import type { VisitorIdentifiedMessage } from '@glimpse/messaging';
import { scheduleIdentified, type IdentifiedDeliveryStore, type PersonDirectory } from './schedule-identified';

const message: VisitorIdentifiedMessage = {
  eventId: randomUUID(),
  accountId: randomUUID(),
  siteId: randomUUID(),
  visitorId: '65f1a2b3c4d5e6f7a8b9c0d1',
  method: 'identify',
  confidence: 1,
  email: 'ada@example.com',
  at: '2026-11-29T10:00:00.000Z',
};

function store(subscribed: boolean) {
  const enqueued: Parameters<IdentifiedDeliveryStore['enqueue']>[0][] = [];
  const s: IdentifiedDeliveryStore = {
    hasSubscribers: async () => subscribed,
    enqueue: async (input) => {
      enqueued.push(input);
      return 1;
    },
  };
  return { s, enqueued };
}

describe('scheduling visitor.identified', () => {
  it('when no endpoint subscribes, then enrichment is not asked and nothing is scheduled', async () => {
    const { s, enqueued } = store(false);
    const persons: PersonDirectory = { details: jest.fn() };
    expect(await scheduleIdentified(message, { store: s, persons })).toBe(0);
    expect(persons.details).not.toHaveBeenCalled();
    expect(enqueued).toEqual([]);
  });

  it('when enrichment knows nobody with the email, then the delivery carries empty details, keyed by the identification', async () => {
    const { s, enqueued } = store(true);
    expect(await scheduleIdentified(message, { store: s, persons: { details: async () => null } })).toBe(1);
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]).toMatchObject({ accountId: message.accountId, eventId: message.eventId, email: message.email, type: 'visitor.identified' });
    expect(JSON.parse(enqueued[0]!.payload).data.details).toEqual({});
  });

  it('when enrichment cannot be reached, then it throws and nothing is scheduled (the message comes back)', async () => {
    const { s, enqueued } = store(true);
    await expect(
      scheduleIdentified(message, {
        store: s,
        persons: {
          details: async () => {
            throw new Error('connect ECONNREFUSED');
          },
        },
      }),
    ).rejects.toThrow('ECONNREFUSED');
    expect(enqueued).toEqual([]);
  });
});
