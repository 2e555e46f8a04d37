/// <reference lib="dom" />
// What the site tag sends to identify a visitor, and what it keeps back for consent, in a real
// headless Chromium against a collector that serves the real tag and records every post: form
// capture, email-link tokens, consent required, denial and Global Privacy Control. The same
// through the gateway and the visitors service is tag-identification.browser.int.test.ts.
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../../../test/support/browser';
import { waitFor } from '../../../test/support/stack';
import { RECEIVER_VID, startReceiver, startTestSite, type CollectedPost, type PageOptions, type Receiver, type TestSite } from './tag-site';

const PASSWORD = 'Sw0rdfish-never-sent';

let browser: Browser;
let receiver: Receiver;
let site: TestSite;
let pageOptions: Partial<PageOptions> = {};
// Each test (and each part of one) installs the tag under its own key, so a late beacon from a page
// closed before is told apart from what the test looks at.
let siteKey = '';
let keys = 0;
const nextKey = () => (siteKey = `glp_identification${++keys}`);

/** As the gateway answers: a vid only where the visitor may have one (no consent field, or granted). */
const answerAsGateway = (post: CollectedPost) => ({
  status: 200,
  body: { vid: post.body.consent === undefined || post.body.consent === 'granted' ? (post.body.vid ?? RECEIVER_VID) : null, accepted: post.body.events.length },
});

beforeAll(async () => {
  [browser, receiver] = await Promise.all([launchChromium("the site tag's identification tests"), startReceiver(() => site.origin)]);
  site = await startTestSite(() => ({ collector: receiver.url, siteKey, ...pageOptions }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await receiver?.stop();
});

beforeEach(() => {
  nextKey();
  receiver.answer = answerAsGateway;
  pageOptions = {};
});

/** A fresh context and tab that records what the page throws and logs as errors; `gpc` sets navigator.globalPrivacyControl. */
async function openTab(options: { gpc?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext();
  if (options.gpc)
    await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true, configurable: true }));
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && !msg.text().startsWith('Failed to load resource') && problems.push(msg.text()));
  return { context, page, problems };
}

type Glimpse = { (...args: unknown[]): void; visitorId(): string | null };
const call = (page: Page, ...args: unknown[]) => page.evaluate((a) => (window as unknown as { glimpse: Glimpse }).glimpse(...a), args);
const visitorId = (page: Page) => page.evaluate(() => (window as unknown as { glimpse: Glimpse }).glimpse.visitorId());
const storageLengths = (page: Page) => page.evaluate(() => [localStorage.length, sessionStorage.length]);
/** What the tag stored for the current site key (parsed), or null. */
const stored = (page: Page, key = siteKey) => page.evaluate((k) => JSON.parse(localStorage.getItem(`_glv:${k}`) ?? 'null') as unknown, key);
const posts = () => receiver.posts.filter((post) => post.body.site === siteKey);
const events = () => posts().flatMap((post) => post.body.events);
const eventsOf = (type: string) => events().filter((event) => event.type === type);
const waitForEvents = (type: string, count: number, what = `${count} ${type} events`) =>
  waitFor(async () => eventsOf(type).length >= count && eventsOf(type), { what, timeoutMs: 10_000 });
/** The post that carried an event of this type (the first one). */
const postWith = (type: string) => posts().find((post) => post.body.events.some((event) => event.type === type));
const settle = () => new Promise((resolve) => setTimeout(resolve, 700));

const FORMS = `
  <form id="signup" action="/thanks" method="post">
    <input type="email" name="work" value="  Form.Person@Example.com ">
    <input type="password" name="email_password" value="${PASSWORD}">
    <input type="text" name="company" value="Acme">
    <button>Sign up</button>
  </form>
  <form id="spa" onsubmit="event.preventDefault()">
    <input type="text" name="user_email" value="spa.person@example.com"><button>Go</button>
  </form>
  <form id="autocompleted" onsubmit="event.preventDefault()">
    <input type="text" name="contact" autocomplete="email" value="auto.person@example.com"><button>Go</button>
  </form>
  <div data-glimpse-ignore><form id="ignored" onsubmit="event.preventDefault()"><input type="email" name="email" value="ignored.form@example.com"></form></div>
  <form id="ignored-field" onsubmit="event.preventDefault()"><input type="email" name="email" value="ignored.field@example.com" data-glimpse-ignore></form>
  <form id="password-only" onsubmit="event.preventDefault()"><input type="password" name="email" value="${PASSWORD}@example.com"></form>`;

const submit = (page: Page, id: string) => page.evaluate((formId) => (document.getElementById(formId) as HTMLFormElement).requestSubmit(), id);

describe('form capture', () => {
  it('when a form with an email field is submitted on a site that captures forms, then its email is sent with method form; never a password, never an ignored form or field', async () => {
    pageOptions = { tagAttributes: { 'data-capture-forms': 'true' }, body: FORMS };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/contact`);
    await waitFor(() => visitorId(page), { what: 'the vid' });

    for (const id of ['ignored', 'ignored-field', 'password-only', 'spa', 'autocompleted']) await submit(page, id);
    await waitForEvents('identify', 2);
    // The sign-up form navigates away: its identify leaves with the unloading page or the next one.
    await Promise.all([page.waitForURL(`${site.origin}/thanks`), submit(page, 'signup')]);
    const identifies = await waitForEvents('identify', 3);
    await settle();

    expect(identifies.map((event) => [event.method, event.email, event.path])).toEqual([
      ['form', 'spa.person@example.com', '/contact'],
      ['form', 'auto.person@example.com', '/contact'],
      ['form', 'Form.Person@Example.com', '/contact'],
    ]);
    expect(eventsOf('identify')).toHaveLength(3);
    expect(posts().some((post) => post.raw.includes(PASSWORD) || post.raw.includes('ignored.') || post.raw.includes('Acme'))).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('when the site does not capture forms, then a submitted email is not sent', async () => {
    pageOptions = { body: FORMS };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/contact`);
    await waitForEvents('pageview', 1);
    await submit(page, 'spa');
    await settle();
    expect(eventsOf('identify')).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('email links', () => {
  it('when a page is opened from an email link, then the token is sent and leaves the address bar before the page view, the other parameters and the hash kept', async () => {
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/offer?utm_source=mail&gl=tok_EN-123.x&b=a%20b#terms`);
    const [link] = await waitForEvents('link', 1);

    expect(page.url()).toBe(`${site.origin}/offer?utm_source=mail&b=a%20b#terms`);
    expect(link).toMatchObject({ type: 'link', token: 'tok_EN-123.x' });
    const views = eventsOf('pageview');
    expect(views).toHaveLength(1);
    // The URL sent keeps the path and UTM only (the site allows no other query key), never the fragment.
    expect(views[0]).toMatchObject({ url: `${site.origin}/offer?utm_source=mail`, path: '/offer', utm: { source: 'mail' } });
    expect(
      posts().some(
        (post) => post.raw.includes('tok_EN-123.x') && post.body.events.some((event) => event.type === 'pageview' && JSON.stringify(event).includes('gl=')),
      ),
    ).toBe(false);

    // Alone in the query, nothing of it is left; the clean-up itself is no page view.
    await page.goto(`${site.origin}/solo?gl=second`);
    await waitForEvents('link', 2);
    expect(page.url()).toBe(`${site.origin}/solo`);
    await settle();
    expect(eventsOf('pageview').map((event) => event.url)).toEqual([`${site.origin}/offer?utm_source=mail`, `${site.origin}/solo`]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('consent', () => {
  it('when the site requires consent, then nothing is stored and nothing identifies until it is granted; the grant goes with what waited, and the id is kept from then on', async () => {
    pageOptions = { tagAttributes: { 'data-consent': 'required', 'data-capture-forms': 'true' }, body: FORMS };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/start?gl=pending-token`);
    await waitForEvents('pageview', 1);
    await page.evaluate(() => history.pushState({}, '', '/second'));
    await call(page, 'identify', { email: 'waiting@example.com' });
    await submit(page, 'spa');
    await waitForEvents('pageview', 2);
    await settle();

    expect(posts().map((post) => [post.body.consent, post.body.vid])).toEqual(posts().map(() => ['pending', undefined]));
    // (Engagement goes too when a second of the first page was visible on a slow machine: no identification.)
    expect(
      events()
        .map((event) => event.type)
        .filter((type) => type !== 'engagement'),
    ).toEqual(['pageview', 'pageview']);
    expect(page.url()).toBe(`${site.origin}/second`);
    expect(await storageLengths(page)).toEqual([0, 0]);
    expect(await visitorId(page)).toBeNull();

    await call(page, 'consent', 'granted');
    await waitFor(() => visitorId(page), { what: 'the vid minted on consent' });
    const granted = postWith('consent')!;
    expect(granted.body.consent).toBe('granted');
    expect(granted.body.events.map((event) => [event.type, event.state ?? event.token ?? event.email])).toEqual([
      ['consent', 'granted'],
      ['link', 'pending-token'],
      ['identify', 'waiting@example.com'],
      ['identify', 'spa.person@example.com'],
    ]);
    // The grant names this page load's views sent while pending: only they join the new visitor.
    expect((granted.body.events[0]!.views as { path: string }[]).map((view) => view.path)).toEqual(['/start', '/second']);
    expect(await stored(page)).toEqual({ v: RECEIVER_VID, g: 1 });

    // The next page of the site: the grant given is remembered by the id stored with it.
    const mark = receiver.posts.length;
    await page.goto(`${site.origin}/third`);
    const third = await waitFor(async () => receiver.posts.slice(mark).find((post) => post.body.events.some((event) => event.path === '/third')), {
      what: 'the third page view',
    });
    expect(third.body).toMatchObject({ consent: 'granted', vid: RECEIVER_VID });
    await call(page, 'consent', 'granted');
    await settle();
    expect(receiver.posts.slice(mark).flatMap((post) => post.body.events.filter((event) => event.type === 'consent'))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('when a visitor who granted consent denies it, then the denial names the visitor once, the stored id goes, and nothing identifies any more', async () => {
    pageOptions = { tagAttributes: { 'data-consent': 'required' } };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/start`);
    await call(page, 'consent', 'granted');
    await waitFor(() => visitorId(page), { what: 'the vid' });

    await call(page, 'consent', 'denied');
    expect((await waitForEvents('consent', 2)).map((event) => event.state)).toEqual(['granted', 'denied']);
    const denied = posts().find((post) => post.body.events.some((event) => event.state === 'denied'))!;
    expect(denied.body).toMatchObject({ consent: 'denied', vid: RECEIVER_VID });
    expect(denied.body.events.map((event) => [event.type, event.state])).toEqual([['consent', 'denied']]);
    expect(await storageLengths(page)).toEqual([0, 0]);
    expect(await visitorId(page)).toBeNull();

    const before = posts().length;
    await call(page, 'identify', { email: 'denied@example.com' });
    await call(page, 'track', 'clicked');
    await page.evaluate(() => history.pushState({}, '', '/after'));
    await waitForEvents('pageview', 2);
    await settle();
    const after = posts().slice(before);
    expect(after.every((post) => post.body.consent === 'denied' && post.body.vid === undefined)).toBe(true);
    expect(after.flatMap((post) => post.body.events.map((event) => event.type)).filter((type) => type !== 'engagement')).toEqual(['pageview']);
    expect(await storageLengths(page)).toEqual([0, 0]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('when the browser sends Global Privacy Control, then the visitor is denied for good (a grant changes nothing) unless the site does not honour it', async () => {
    const { context, page, problems } = await openTab({ gpc: true });
    await page.goto(`${site.origin}/private`);
    await waitForEvents('pageview', 1);
    await call(page, 'consent', 'granted');
    await call(page, 'identify', { email: 'gpc@example.com' });
    await settle();
    expect(posts().every((post) => post.body.consent === 'denied' && post.body.gpc === true && post.body.vid === undefined)).toBe(true);
    expect(events().map((event) => event.type)).toEqual(['pageview']);
    expect(await storageLengths(page)).toEqual([0, 0]);

    nextKey();
    pageOptions = { tagAttributes: { 'data-honor-gpc': 'false' } };
    await page.goto(`${site.origin}/not-honoured`);
    await waitFor(() => visitorId(page), { what: 'the vid' });
    // (The page left went on saying so with its last seconds.)
    const honoured = posts().find((post) => post.body.events.some((event) => event.path === '/not-honoured'))!;
    expect(honoured.body.consent).toBeUndefined();
    // The signal itself still travels: a site whose server settings honour GPC honours it there.
    expect(honoured.body.gpc).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('when a site implies consent, then requests say nothing of it until the visitor denies', async () => {
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/implied`);
    await waitFor(() => visitorId(page), { what: 'the vid' });
    expect(posts().every((post) => post.body.consent === undefined && post.body.gpc === undefined)).toBe(true);
    // Stored per site key, and no grant: an implied site's id says nothing of consent.
    expect(await stored(page)).toEqual({ v: RECEIVER_VID, g: 0 });

    await call(page, 'consent', 'denied');
    await waitForEvents('consent', 1);
    expect(postWith('consent')!.body).toMatchObject({ consent: 'denied', vid: RECEIVER_VID });
    expect(await storageLengths(page)).toEqual([0, 0]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('consent that holds', () => {
  /** The posts of the current key from `mark` on. */
  const since = (mark: number) => receiver.posts.slice(mark).filter((post) => post.body.site === siteKey);

  it('when another site on the same origin stored a visitor id (or the tag before, under _glv), then a consent-required site takes it as no grant: nothing sent as granted, nothing stored, nothing identifies', async () => {
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/other-site`);
    await waitFor(() => visitorId(page), { what: "the other site's vid" });
    const otherKey = siteKey;
    // What the tag stored before ids were kept per site.
    await page.evaluate((vid) => localStorage.setItem('_glv', vid), RECEIVER_VID);

    nextKey();
    pageOptions = { tagAttributes: { 'data-consent': 'required' } };
    await page.goto(`${site.origin}/this-site`);
    await waitForEvents('pageview', 1);
    await call(page, 'identify', { email: 'not.granted@example.com' });
    await settle();
    expect(posts().map((post) => [post.body.consent, post.body.vid])).toEqual(posts().map(() => ['pending', undefined]));
    expect(events().map((event) => event.type)).toEqual(['pageview']);
    expect(await visitorId(page)).toBeNull();
    expect(await stored(page)).toBeNull();
    expect(await stored(page, otherKey)).toEqual({ v: RECEIVER_VID, g: 0 });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('when a site switches from implied to required consent, then the id it stored while implied is no grant until the visitor grants on it', async () => {
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/while-implied`);
    await waitFor(() => visitorId(page), { what: 'the vid while implied' });

    pageOptions = { tagAttributes: { 'data-consent': 'required' } };
    const mark = receiver.posts.length;
    await page.goto(`${site.origin}/now-required`);
    await waitFor(async () => since(mark).some((post) => post.body.events.some((event) => event.path === '/now-required')), { what: 'the page view' });
    await call(page, 'identify', { email: 'switched@example.com' });
    await settle();
    const pending = since(mark).filter((post) => post.body.events.some((event) => event.path === '/now-required' || event.type === 'identify'));
    expect(pending.map((post) => [post.body.consent, post.body.vid])).toEqual(pending.map(() => ['pending', undefined]));
    expect(pending.flatMap((post) => post.body.events.map((event) => event.type))).toEqual(['pageview']);
    expect(await visitorId(page)).toBeNull();
    // What it stored while implied, unchanged: an id without a grant.
    expect(await stored(page)).toEqual({ v: RECEIVER_VID, g: 0 });

    await call(page, 'consent', 'granted');
    await waitFor(() => visitorId(page), { what: 'the vid minted on consent' });
    const granted = since(mark).find((post) => post.body.events.some((event) => event.type === 'consent'))!;
    expect(granted.body.events.map((event) => [event.type, event.state ?? event.email])).toEqual([
      ['consent', 'granted'],
      ['identify', 'switched@example.com'],
    ]);
    expect(await stored(page)).toEqual({ v: RECEIVER_VID, g: 1 });
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the per-site script', () => {
  it('when the per-site script says consent is required, then it holds without any data-consent attribute, and the grant is kept for the next page', async () => {
    receiver.settings[siteKey] = { consent: 'required' };
    pageOptions = { perSite: true };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/per-site`);
    await waitForEvents('pageview', 1);
    await call(page, 'identify', { email: 'per.site@example.com' });
    await settle();
    expect(posts().map((post) => [post.body.consent, post.body.vid])).toEqual(posts().map(() => ['pending', undefined]));
    expect(events().map((event) => event.type)).toEqual(['pageview']);
    expect(await storageLengths(page)).toEqual([0, 0]);

    await call(page, 'consent', 'granted');
    await waitFor(() => visitorId(page), { what: 'the vid minted on consent' });
    expect(await stored(page)).toEqual({ v: RECEIVER_VID, g: 1 });
    const mark = receiver.posts.length;
    await page.goto(`${site.origin}/per-site-again`);
    const again = await waitFor(async () => receiver.posts.slice(mark).find((post) => post.body.events.some((event) => event.path === '/per-site-again')), {
      what: 'the next page view',
    });
    expect(again.body).toMatchObject({ site: siteKey, consent: 'granted', vid: RECEIVER_VID });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("when the snippet's attributes disagree with the site's settings, then they only make the tag stricter", async () => {
    // Looser attributes change nothing: consent stays required, forms are not captured.
    receiver.settings[siteKey] = { consent: 'required', forms: false };
    pageOptions = { perSite: true, body: FORMS, tagAttributes: { 'data-consent': 'implied', 'data-capture-forms': 'true' } };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/looser`);
    await waitForEvents('pageview', 1);
    await submit(page, 'spa');
    await call(page, 'consent', 'granted');
    await waitForEvents('consent', 1);
    await settle();
    expect(posts()[0]!.body.consent).toBe('pending');
    expect(eventsOf('identify')).toEqual([]);
    await context.close();

    // Stricter attributes hold: consent required, no form capture, GPC honoured.
    nextKey();
    receiver.settings[siteKey] = { consent: 'implied', forms: true, gpc: false };
    pageOptions = { perSite: true, body: FORMS, tagAttributes: { 'data-consent': 'required', 'data-capture-forms': 'false' } };
    const strict = await openTab();
    await strict.page.goto(`${site.origin}/stricter`);
    await waitForEvents('pageview', 1);
    expect(posts()[0]!.body.consent).toBe('pending');
    await call(strict.page, 'consent', 'granted');
    await submit(strict.page, 'spa');
    await waitForEvents('consent', 1);
    await settle();
    expect(eventsOf('identify')).toEqual([]);
    await strict.context.close();

    nextKey();
    receiver.settings[siteKey] = { consent: 'implied', gpc: false };
    pageOptions = { perSite: true, tagAttributes: { 'data-honor-gpc': 'true' } };
    const gpc = await openTab({ gpc: true });
    await gpc.page.goto(`${site.origin}/gpc`);
    await waitForEvents('pageview', 1);
    expect(posts()[0]!.body).toMatchObject({ consent: 'denied', gpc: true });
    expect(await storageLengths(gpc.page)).toEqual([0, 0]);
    expect([...problems, ...strict.problems, ...gpc.problems]).toEqual([]);
    await gpc.context.close();
  });

  it("when a page's address has a query and a fragment, then the tag sends the path, the UTM and the site's query keys only, and the referrer's origin and path", async () => {
    receiver.settings[siteKey] = { query: ['page'] };
    pageOptions = { perSite: true };
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/reset?token=s3cr3t&page=2&utm_source=news#access_token=frag-secret`, {
      referer: 'https://search.example/q?email=ann%40example.com',
    });
    const [view] = await waitForEvents('pageview', 1);
    expect(view).toMatchObject({ path: '/reset', url: `${site.origin}/reset?page=2&utm_source=news`, referrer: 'https://search.example/q' });
    await page.evaluate(() => history.pushState({}, '', '/next?token=again#x'));
    const [, next] = await waitForEvents('pageview', 2);
    expect(next).toMatchObject({ path: '/next', url: `${site.origin}/next`, referrer: `${site.origin}/reset` });
    expect(posts().some((post) => /s3cr3t|frag-secret|again|ann%40/.test(post.raw))).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("when identify carries a hash, then the tag sends it as the event's hash, not among the traits", async () => {
    const { context, page, problems } = await openTab();
    await page.goto(`${site.origin}/hashed`);
    await waitFor(() => visitorId(page), { what: 'the vid' });
    const hash = 'ab'.repeat(32);
    await call(page, 'identify', { email: 'hashed@example.com', hash, plan: 'pro' });
    const [identify] = await waitForEvents('identify', 1);
    expect(identify).toMatchObject({ email: 'hashed@example.com', hash, traits: { plan: 'pro' } });
    expect(problems).toEqual([]);
    await context.close();
  });
});
