import { AppError } from '@glimpse/errors';
import { collectedSchema } from '@glimpse/messaging';
import { botMessages, collectedMessages, cookieValue, mintVisitorId, parseCollectRequest, visitorCookie, visitorIdOf } from './collect-input';

const ctx = {
  accountId: '11111111-1111-4111-8111-111111111111',
  siteId: '22222222-2222-4222-8222-222222222222',
  trackEvents: ['signup'],
  visitorId: 'a'.repeat(24),
  receivedAt: '2026-11-25T10:00:00.000Z',
  userAgent: 'Mozilla/5.0',
  ip: '203.0.113.9',
};
const pageview = { type: 'pageview', id: 'pv_00000001', url: 'https://a.test/p?q=1#h', path: '/p', title: 'P', referrer: 'https://ref.test/', utm: { campaign: 'fall' } } as const;

describe('collect input', () => {
  it('when a body holds every kind of event, then it parses; the wire format refuses the rest with the path', () => {
    const body = {
      site: 'glp_' + 'x'.repeat(32),
      vid: null,
      events: [pageview, { type: 'engagement', id: 'en_00000001', pageViewId: 'pv_00000001', seconds: 12 }, { type: 'identify', id: 'id_00000001', email: 'A@B.co', traits: { plan: 'pro' } }, { type: 'track', id: 'tr_00000001', event: 'signup', properties: { n: 1 } }],
    };
    expect(parseCollectRequest(body).events).toHaveLength(4);
    for (const [bad, message] of [
      [{ site: 'k', events: [] }, 'at least one event'],
      [{ site: 'k', events: Array.from({ length: 51 }, () => pageview) }, 'at most 50'],
      [{ site: 'k', events: [{ ...pageview, id: 'short' }] }, 'id must be 8 to 64'],
      [{ site: 'k', events: [{ ...pageview, path: 'p' }] }, 'path must start with /'],
      [{ site: 'k', events: [{ type: 'click', id: 'abcdefgh' }] }, 'each event needs a type'],
      [{ site: 'k', events: [{ ...pageview, extra: 1 }] }, 'extra'],
      [{ events: [pageview] }, 'site is required'],
      ['text', 'body must be a JSON object'],
    ] as const) {
      expect(() => parseCollectRequest(bad)).toThrow(AppError);
      expect(() => parseCollectRequest(bad)).toThrow(message);
    }
  });

  it('when a visitor id is minted, then it is 24 hex: the Unix seconds, then random bytes', () => {
    const vid = mintVisitorId(Date.UTC(2026, 10, 25) + 999);
    expect(vid).toMatch(/^[a-f0-9]{24}$/);
    expect(parseInt(vid.slice(0, 8), 16)).toBe(Date.UTC(2026, 10, 25) / 1000);
    expect(mintVisitorId()).not.toBe(mintVisitorId());
  });

  it('when the body and the cookie both name a visitor, then a valid body vid wins, else the cookie, else a new one', () => {
    const body = 'b'.repeat(24);
    const cookie = `x=1; _glv=${'c'.repeat(24)}; y=2`;
    expect(visitorIdOf(body, cookie)).toEqual({ vid: body, minted: false });
    expect(visitorIdOf('NOT-HEX', cookie)).toEqual({ vid: 'c'.repeat(24), minted: false });
    expect(visitorIdOf(undefined, '_glv=bad')).toEqual({ vid: expect.stringMatching(/^[a-f0-9]{24}$/), minted: true });
    expect(cookieValue(undefined, '_glv')).toBeUndefined();
  });

  it('when the cookie is made, then it lasts a year, is Lax and HttpOnly, and Secure only under https', () => {
    expect(visitorCookie('a'.repeat(24), false)).toBe(`_glv=${'a'.repeat(24)}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`);
    expect(visitorCookie('a'.repeat(24), true)).toMatch(/; Secure$/);
  });

  it('when events become messages, then each is a valid collected message, the email normalised, the page view with who and where', () => {
    const { events } = parseCollectRequest({
      site: 'k',
      events: [pageview, { type: 'engagement', id: 'en_00000001', pageViewId: 'pv_00000001', seconds: 5 }, { type: 'identify', id: 'id_00000001', email: ' Ann@Example.COM ', path: '/p' }, { type: 'track', id: 'tr_00000001', event: 'signup' }],
    });
    const { messages, dropped } = collectedMessages(events, ctx);
    expect(dropped).toEqual({});
    for (const m of messages) expect(collectedSchema.safeParse(m).success).toBe(true);
    expect(messages[0]).toEqual({ ...pageview, accountId: ctx.accountId, siteId: ctx.siteId, visitorId: ctx.visitorId, receivedAt: ctx.receivedAt, userAgent: 'Mozilla/5.0', ip: '203.0.113.9' });
    expect(messages[2]).toMatchObject({ type: 'identify', email: 'ann@example.com' });
    expect(messages[3]).toMatchObject({ type: 'track', event: 'signup', properties: {} });
  });

  it('when a track name is not allowed or an identify has no valid email, then that event is dropped and counted, the rest kept', () => {
    const { events } = parseCollectRequest({
      site: 'k',
      events: [pageview, { type: 'track', id: 'tr_00000001', event: 'purchase' }, { type: 'track', id: 'tr_00000002', event: 'other' }, { type: 'identify', id: 'id_00000001', email: 'nope' }],
    });
    const { messages, dropped } = collectedMessages(events, ctx);
    expect(messages.map((m) => m.type)).toEqual(['pageview']);
    expect(dropped).toEqual({ track_not_allowed: 2, invalid_email: 1 });
  });

  it("when a bot sends events, then each page view becomes a bot message with the reason and nothing else", () => {
    const { events } = parseCollectRequest({ site: 'k', events: [pageview, { type: 'engagement', id: 'en_00000001', pageViewId: 'pv_00000001', seconds: 5 }] });
    const bots = botMessages(events, ctx, 'x'.repeat(300));
    expect(bots).toEqual([{ type: 'bot', id: pageview.id, accountId: ctx.accountId, siteId: ctx.siteId, receivedAt: ctx.receivedAt, reason: 'x'.repeat(128) }]);
    expect(collectedSchema.safeParse(bots[0]).success).toBe(true);
  });
});
