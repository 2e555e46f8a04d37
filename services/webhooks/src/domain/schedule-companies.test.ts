import { randomUUID } from 'node:crypto';
import type { CompanyRecord } from '@glimpse/api';
import type { CompanyVisitedMessage } from '@glimpse/messaging';
import { scheduleCompanyVisits, type CompanyDelivery, type CompanyDeliveryStore, type CompanyDirectory, type CompanyVisit } from './schedule-companies';

const publishedAt = new Date('2026-11-29T10:00:01.000Z');

function visit(accountId: string, fields: Partial<CompanyVisitedMessage> = {}): CompanyVisit {
  return {
    publishedAt,
    message: {
      eventId: randomUUID(),
      accountId,
      siteId: randomUUID(),
      company: 'engines.example',
      name: null,
      domain: 'engines.example',
      visitorId: '65f1a2b3c4d5e6f7a8b9c0d1',
      windowStart: '2026-11-29T00:00:00.000Z',
      at: '2026-11-29T10:00:00.000Z',
      network: null,
      location: null,
      ...fields,
    },
  };
}

const record = (domain: string): CompanyRecord => ({
  domain,
  name: `${domain} Ltd`,
  industry: 'Computing',
  size: '11-50',
  employees: 30,
  founded: 2001,
  location: { country: 'GB', region: null, city: null },
  pronet_url: null,
});

function store(subscribed: string[]) {
  const enqueued: CompanyDelivery[] = [];
  const asked: string[][] = [];
  const s: CompanyDeliveryStore = {
    subscribedAccounts: async (ids) => {
      asked.push(ids);
      return new Set(ids.filter((id) => subscribed.includes(id)));
    },
    enqueue: async (deliveries) => {
      enqueued.push(...deliveries);
      return deliveries.length;
    },
  };
  return { s, enqueued, asked };
}

function directory(records: CompanyRecord[]) {
  const calls: { domains: string[]; accountId: string }[] = [];
  const companies: CompanyDirectory = {
    lookup: async (domains, accountId) => {
      calls.push({ domains, accountId });
      return records.filter((r) => domains.includes(r.domain));
    },
  };
  return { companies, calls };
}

describe('scheduling company.visited', () => {
  it('when no endpoint of the accounts subscribes, then enrichment is not asked and nothing is scheduled', async () => {
    const { s, enqueued } = store([]);
    const { companies, calls } = directory([]);
    expect(await scheduleCompanyVisits([visit(randomUUID()), visit(randomUUID())], { store: s, companies })).toBe(0);
    expect(calls).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it("when a chunk holds several accounts' visits, then subscribers are asked once, enrichment once for the subscribed accounts' domains, and each delivery carries its own record", async () => {
    const [a, b, quiet] = [randomUUID(), randomUUID(), randomUUID()];
    const { s, enqueued, asked } = store([a, b]);
    const { companies, calls } = directory([record('engines.example'), record('looms.example')]);
    const visits = [
      visit(a),
      visit(b, { company: 'looms.example', domain: 'WWW.Looms.example' }),
      visit(b, { company: 'nowhere.example', domain: 'nowhere.example' }),
      visit(quiet, { company: 'quiet.example', domain: 'quiet.example' }),
      visit(a),
    ];

    expect(await scheduleCompanyVisits(visits, { store: s, companies })).toBe(4);

    expect(asked).toEqual([[a, b, quiet]]);
    expect(calls).toEqual([{ domains: ['engines.example', 'looms.example', 'nowhere.example'], accountId: a }]);
    expect(enqueued.map((d) => d.eventId)).toEqual([visits[0], visits[1], visits[2], visits[4]].map((v) => v!.message.eventId));
    const bodies = enqueued.map((d) => JSON.parse(d.payload));
    expect(bodies.map((b) => b.data.company.industry)).toEqual(['Computing', 'Computing', null, 'Computing']);
    expect(bodies[1].data.company).toMatchObject({ key: 'looms.example', name: 'looms.example Ltd', domain: 'WWW.Looms.example' });
    expect(enqueued[0]).toMatchObject({ accountId: a, siteId: visits[0]!.message.siteId, company: 'engines.example', type: 'company.visited', publishedAt });
  });

  it('when the same visit comes twice in a chunk, then it is scheduled once', async () => {
    const account = randomUUID();
    const { s, enqueued } = store([account]);
    const once = visit(account);
    expect(await scheduleCompanyVisits([once, once], { store: s, companies: directory([]).companies })).toBe(1);
    expect(enqueued).toHaveLength(1);
  });

  it('when no subscribed visit names a domain, then enrichment is not asked and the firmographics are null', async () => {
    const account = randomUUID();
    const { s, enqueued } = store([account]);
    const { companies, calls } = directory([]);
    expect(await scheduleCompanyVisits([visit(account, { company: 'acme research', name: 'Acme Research', domain: null })], { store: s, companies })).toBe(1);
    expect(calls).toEqual([]);
    expect(JSON.parse(enqueued[0]!.payload).data.company).toMatchObject({ key: 'acme research', name: 'Acme Research', industry: null });
  });

  it('when enrichment cannot be reached, then it throws and nothing is scheduled (the chunk comes back)', async () => {
    const account = randomUUID();
    const { s, enqueued } = store([account]);
    const companies: CompanyDirectory = {
      lookup: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    };
    await expect(scheduleCompanyVisits([visit(account)], { store: s, companies })).rejects.toThrow('ECONNREFUSED');
    expect(enqueued).toEqual([]);
  });
});
