import { AppError } from '@glimpse/errors';
import { collectedSchema } from '@glimpse/messaging';
import {
  botMessages,
  collectedMessages,
  cookieValue,
  decideConsent,
  knownVisitorId,
  mintVisitorId,
  parseCollectRequest,
  visitorCookie,
  visitorIdOf,
  type CollectContext,
} from './collect-input';
import { generateIdentitySecret, identityHash, verifyIdentityHash } from './identity-hash';
import { createLinkTokens } from './link-token';

const ctx: CollectContext = {
  accountId: '11111111-1111-4111-8111-111111111111',
  siteId: '22222222-2222-4222-8222-222222222222',
  trackEvents: ['signup'],
  visitorId: 'a'.repeat(24),
  receivedAt: '2026-11-25T10:00:00.000Z',
  userAgent: 'Mozilla/5.0',
  ip: '203.0.113.9',
  captureForms: false,
  cookieless: false,
  queryKeys: [],
  verifyLink: () => ({ ok: false, reason: 'link_invalid' }),
  identityVerification: 'off',
  verifyIdentity: () => false,
};
const pageview = {
  type: 'pageview',
  id: 'pv_00000001',
  url: 'https://a.test/p?q=1#h',
  path: '/p',
  title: 'P',
  referrer: 'https://ref.test/',
  utm: { campaign: 'fall' },
} as const;

describe('collect input', () => {
  it('when a body holds every kind of event, then it parses; the wire format refuses the rest with the path', () => {
    const body = {
      site: 'glp_' + 'x'.repeat(32),
      vid: null,
      events: [
        pageview,
        { type: 'engagement', id: 'en_00000001', pageViewId: 'pv_00000001', seconds: 12 },
        { type: 'identify', id: 'id_00000001', email: 'A@B.co', traits: { plan: 'pro' } },
        { type: 'track', id: 'tr_00000001', event: 'signup', properties: { n: 1 } },
      ],
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

  it('when the body and the cookie both name a visitor, then a valid cookie wins, else the body vid, else a new one', () => {
    const body = 'b'.repeat(24);
    const cookie = `x=1; _glv=${'c'.repeat(24)}; y=2`;
    expect(visitorIdOf(body, cookie)).toEqual({ vid: 'c'.repeat(24), minted: false });
    expect(knownVisitorId(body, cookie)).toBe('c'.repeat(24));
    expect(visitorIdOf(body, '_glv=bad')).toEqual({ vid: body, minted: false });
    expect(visitorIdOf(body, undefined)).toEqual({ vid: body, minted: false });
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
      events: [
        pageview,
        { type: 'engagement', id: 'en_00000001', pageViewId: 'pv_00000001', seconds: 5 },
        { type: 'identify', id: 'id_00000001', email: ' Ann@Example.COM ', path: '/p' },
        { type: 'track', id: 'tr_00000001', event: 'signup' },
      ],
    });
    const { messages, dropped } = collectedMessages(events, ctx);
    expect(dropped).toEqual({});
    for (const m of messages) expect(collectedSchema.safeParse(m).success).toBe(true);
    expect(messages[0]).toEqual({
      ...pageview,
      url: 'https://a.test/p',
      accountId: ctx.accountId,
      siteId: ctx.siteId,
      visitorId: ctx.visitorId,
      receivedAt: ctx.receivedAt,
      userAgent: 'Mozilla/5.0',
      ip: '203.0.113.9',
    });
    expect(messages[2]).toMatchObject({ type: 'identify', email: 'ann@example.com' });
    expect(messages[3]).toMatchObject({ type: 'track', event: 'signup', properties: {} });
  });

  it('when a track name is not allowed or an identify has no valid email, then that event is dropped and counted, the rest kept', () => {
    const { events } = parseCollectRequest({
      site: 'k',
      events: [
        pageview,
        { type: 'track', id: 'tr_00000001', event: 'purchase' },
        { type: 'track', id: 'tr_00000002', event: 'other' },
        { type: 'identify', id: 'id_00000001', email: 'nope' },
      ],
    });
    const { messages, dropped } = collectedMessages(events, ctx);
    expect(messages.map((m) => m.type)).toEqual(['pageview']);
    expect(dropped).toEqual({ track_not_allowed: 2, invalid_email: 1 });
  });

  it('when a bot sends events, then each page view becomes a bot message with the reason and nothing else', () => {
    const { events } = parseCollectRequest({ site: 'k', events: [pageview, { type: 'engagement', id: 'en_00000001', pageViewId: 'pv_00000001', seconds: 5 }] });
    const bots = botMessages(events, ctx, 'x'.repeat(300));
    expect(bots).toEqual([{ type: 'bot', id: pageview.id, accountId: ctx.accountId, siteId: ctx.siteId, receivedAt: ctx.receivedAt, reason: 'x'.repeat(128) }]);
    expect(collectedSchema.safeParse(bots[0]).success).toBe(true);
  });
});

describe('identification and consent in collect', () => {
  const identify = { type: 'identify', id: 'id_00000001', email: 'Ann@Example.com' } as const;
  const form = { ...identify, id: 'id_00000002', method: 'form' } as const;
  const linkTokens = createLinkTokens('a-test-secret-of-at-least-32-characters!');
  const events = (...items: unknown[]) => parseCollectRequest({ site: 'k', events: items }).events;

  it('when a form capture arrives, then it is kept (method form) only when the site captures forms; an identify is method identify', () => {
    expect(collectedMessages(events(identify, form), ctx)).toEqual({
      messages: [expect.objectContaining({ method: 'identify' })],
      dropped: { form_capture_off: 1 },
    });
    const on = collectedMessages(events(form), { ...ctx, captureForms: true });
    expect(on.messages).toEqual([expect.objectContaining({ type: 'identify', email: 'ann@example.com', method: 'form' })]);
    expect(collectedSchema.safeParse(on.messages[0]).success).toBe(true);
  });

  describe('verified identity', () => {
    const secret = generateIdentitySecret();
    const secrets = { identitySecret: secret, previousIdentitySecret: null, previousIdentitySecretExpiresAt: null };
    const site = (mode: CollectContext['identityVerification']): CollectContext => ({
      ...ctx,
      captureForms: true,
      identityVerification: mode,
      verifyIdentity: (email, hash) => verifyIdentityHash(secrets, email, hash),
    });
    const signed = { ...identify, id: 'id_00000003', hash: identityHash(secret, ' ann@example.COM') } as const;
    const forged = { ...identify, id: 'id_00000004', hash: identityHash(generateIdentitySecret(), 'ann@example.com') } as const;
    const malformed = { ...identify, id: 'id_00000005', hash: 'not hex' } as const;

    it('when the site requires verification, then only an identify with a valid hash is kept, verified; the rest (a form too) are dropped and counted', () => {
      const out = collectedMessages(events(identify, signed, forged, malformed, form), site('required'));
      expect(out.messages).toEqual([
        expect.objectContaining({ type: 'identify', id: signed.id, email: 'ann@example.com', method: 'identify', verified: true }),
      ]);
      expect(out.dropped).toEqual({ identity_unverified: 4 });
      expect(collectedSchema.safeParse(out.messages[0]).success).toBe(true);
      // The hash itself goes no further than the check.
      expect(JSON.stringify(out.messages)).not.toContain(signed.hash);
    });

    it('when verification is optional, then every identify is kept: verified with a valid hash, a claim otherwise (a form always)', () => {
      const out = collectedMessages(events(identify, signed, forged, malformed, form), site('optional'));
      expect(out.dropped).toEqual({});
      expect(out.messages.map((m) => [m.id, m.type === 'identify' && m.verified])).toEqual([
        [identify.id, false],
        [signed.id, true],
        [forged.id, false],
        [malformed.id, false],
        [form.id, false],
      ]);
    });

    it('when verification is off, then no hash is checked: every identify is a claim', () => {
      const out = collectedMessages(events(identify, signed), site('off'));
      expect(out.messages.map((m) => m.type === 'identify' && m.verified)).toEqual([false, false]);
    });
  });

  it("when a link token is this account's, then it identifies with email_link; another account's or a broken one is dropped and counted", () => {
    const verifyLink = (token: string) => linkTokens.verify(token, ctx.accountId);
    const mine = linkTokens.issue(ctx.accountId, 'bob@example.com', 30).token;
    const theirs = linkTokens.issue('33333333-3333-4333-8333-333333333333', 'eve@example.com', 30).token;
    const out = collectedMessages(
      events(
        { type: 'link', id: 'ln_00000001', token: mine },
        { type: 'link', id: 'ln_00000002', token: theirs },
        { type: 'link', id: 'ln_00000003', token: 'x'.repeat(40) },
      ),
      { ...ctx, verifyLink },
    );
    expect(out.messages).toEqual([
      expect.objectContaining({ type: 'identify', id: 'ln_00000001', email: 'bob@example.com', method: 'email_link', verified: true }),
    ]);
    expect(collectedSchema.safeParse(out.messages[0]).success).toBe(true);
    expect(out.dropped).toEqual({ link_foreign_account: 1, link_invalid: 1 });
  });

  it('when the visitor is cookieless, then page views are marked cookieless without the address, and identify, link and track are dropped', () => {
    const out = collectedMessages(
      events(pageview, identify, { type: 'link', id: 'ln_00000001', token: 'abc' }, { type: 'track', id: 'tr_00000001', event: 'signup' }),
      { ...ctx, cookieless: true },
    );
    expect(out.messages).toHaveLength(1);
    expect(out.messages[0]).toMatchObject({ type: 'pageview', cookieless: true });
    expect(out.messages[0]).not.toHaveProperty('ip');
    expect(collectedSchema.safeParse(out.messages[0]).success).toBe(true);
    expect(out.dropped).toEqual({ cookieless: 3 });
  });

  it('when a page view names a full address, then Kafka gets its path, UTM and allowed query keys only, never a fragment, and the referrer without its query', () => {
    const view = {
      ...pageview,
      url: 'https://a.test/reset?token=s3cret&utm_source=news&tab=2#access_token=xyz',
      path: '/reset?token=s3cret#x',
      referrer: 'https://ref.test/search?q=ann%40example.com#r',
    };
    const [message] = collectedMessages(events(view), { ...ctx, queryKeys: ['tab'] }).messages;
    expect(message).toMatchObject({ type: 'pageview', url: 'https://a.test/reset?utm_source=news&tab=2', path: '/reset', referrer: 'https://ref.test/search' });
    expect(JSON.stringify(message)).not.toMatch(/s3cret|xyz|ann/);
    const notUrls = collectedMessages(events({ ...pageview, url: 'javascript:alert(1)', referrer: 'not a url' }), ctx).messages[0];
    expect(notUrls).not.toHaveProperty('url');
    expect(notUrls).not.toHaveProperty('referrer');
  });

  it("when consent is granted, then the consent message carries the browser's pending views (paths trimmed, none later than the grant or older than a day) and no cookieless id; a denial is about the earlier persistent id, else nothing", () => {
    const views = [
      { id: 'pv_00000011', path: '/a?x=1', at: '2026-11-25T09:50:00.000Z' },
      { id: 'pv_00000012', path: '/b', at: '2026-11-25T10:05:00.000Z' },
      { id: 'pv_00000013', path: '/old', at: '2026-11-24T09:59:00.000Z' },
    ];
    const granted = collectedMessages(events({ type: 'consent', id: 'cs_00000001', state: 'granted', views }), ctx);
    expect(granted.messages).toEqual([
      {
        type: 'consent',
        state: 'granted',
        id: 'cs_00000001',
        accountId: ctx.accountId,
        siteId: ctx.siteId,
        visitorId: ctx.visitorId,
        receivedAt: ctx.receivedAt,
        views: [
          { id: 'pv_00000011', path: '/a', at: '2026-11-25T09:50:00.000Z' },
          { id: 'pv_00000012', path: '/b', at: ctx.receivedAt },
        ],
      },
    ]);
    expect(collectedSchema.safeParse(granted.messages[0]).success).toBe(true);
    expect(collectedMessages(events({ type: 'consent', id: 'cs_00000003', state: 'granted' }), ctx).messages[0]).not.toHaveProperty('views');
    const deny = events({ type: 'consent', id: 'cs_00000002', state: 'denied' });
    expect(collectedMessages(deny, { ...ctx, cookieless: true, priorVisitorId: 'c'.repeat(24) }).messages).toEqual([
      expect.objectContaining({ type: 'consent', state: 'denied', visitorId: 'c'.repeat(24) }),
    ]);
    expect(collectedMessages(deny, { ...ctx, cookieless: true }).dropped).toEqual({ consent_without_visitor: 1 });
  });

  it.each([
    ['implied', true, {}, { cookieless: false, granted: false }],
    ['implied', true, { gpc: true }, { cookieless: true, granted: false }],
    ['implied', false, { gpc: true }, { cookieless: false, granted: false }],
    ['implied', true, { consent: 'denied' }, { cookieless: true, granted: false }],
    ['required', true, {}, { cookieless: true, granted: false }],
    ['required', true, { consent: 'pending' }, { cookieless: true, granted: false }],
    ['required', true, { consent: 'granted' }, { cookieless: false, granted: false }],
    ['required', true, { consent: 'pending', grant: true }, { cookieless: false, granted: true }],
    ['required', true, { consent: 'pending', grant: true, gpc: true }, { cookieless: true, granted: false }],
  ] as const)('when the site is %s (honour GPC %s) and the request says %j, then %j', (mode, honorGpc, request, decision) => {
    const items = 'grant' in request ? [{ type: 'consent', id: 'cs_00000001', state: 'granted' } as const] : [];
    expect(decideConsent({ consent: mode, honorGpc }, { ...request, events: items })).toEqual(decision);
  });
});
