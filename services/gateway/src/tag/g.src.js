// Glimpse's site tag, served minified at /g.js and installed as
// <script async src="{base}/g.js" data-site="glp_…"></script>. It counts page views (first load and
// single-page-app navigations, each once), the visible time spent on each, and the page's
// glimpse('identify', …) and glimpse('track', …) calls, and posts them in small batches to
// {base}/collect. It also identifies by the email of a submitted form (data-capture-forms="true")
// and by an email link's ?gl= token, and follows the visitor's consent (data-consent="required",
// glimpse('consent', 'granted' | 'denied'), Global Privacy Control unless data-honor-gpc="false").
// Whatever happens, nothing is thrown into the host page: every entry point (the load, the API,
// the listeners, the history wrappers' own part) swallows its errors.
(function () {
  'use strict';
  /** @type {any} */
  var w = window;
  var STORE = '_glv';
  var MAX_QUEUE = 100;
  var MAX_BATCH = 50;
  var MAX_ATTEMPTS = 5;

  /** @type {any[]} events waiting to be sent, oldest first */
  var queue = [];
  var timer = 0;
  var busy = false;
  var attempts = 0;
  /** @type {string | null} */
  var vid = null;
  var site = '';
  var endpoint = '';
  // The page being counted: its path + query, id, URL, and the visible time not yet reported.
  var lastPage = '';
  var pageViewId = '';
  var pageUrl = '';
  var visibleMs = 0;
  var visibleSince = 0;
  // Consent: '' (implied by the site), 'pending' (required, not given yet), 'granted' or 'denied'.
  // Only '' and 'granted' may store an id; the server keeps the others cookieless.
  var consent = '';
  var gpc = false;
  /** @type {any[]} what identifies the visitor or is about them, held while consent is pending */
  var held = [];

  function noop() {}

  /** A random id: 12 bytes as 16 base64url characters. */
  function newId() {
    return btoa(String.fromCharCode.apply(null, crypto.getRandomValues(new Uint8Array(12))))
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
  }

  /** @param {unknown} value @param {number} max */
  function cut(value, max) {
    return value == null ? undefined : String(value).slice(0, max);
  }

  /**
   * Keeps the one-level values the collector accepts (strings, finite numbers, booleans).
   * @param {any} input
   * @param {string} [skip]
   */
  function flat(input, skip) {
    /** @type {Record<string, string | number | boolean>} */
    var out = {};
    if (!input || typeof input !== 'object' || Array.isArray(input)) return out;
    for (var key in input) {
      var value = input[key];
      if (key !== skip && (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && isFinite(value)))) out[key] = value;
    }
    return out;
  }

  function push(/** @type {any} */ event) {
    event.id = event.id || newId();
    if (queue.length < MAX_QUEUE) queue.push(event);
    schedule(300);
  }

  /** Identification and tracks: sent when the visitor may be identified, held until then, dropped once denied. */
  function personal(/** @type {any} */ event) {
    if (consent === 'pending') {
      if (held.length < MAX_QUEUE) held.push(event);
    } else if (consent !== 'denied') push(event);
  }

  function schedule(/** @type {number} */ ms) {
    if (!timer) timer = setTimeout(flush, ms);
  }

  /**
   * Sends the next batch: one request at a time, so the vid minted for the first reaches the rest.
   * Unloading, it sends everything at once by beacon.
   * @param {boolean} [unloading]
   */
  function flush(unloading) {
    try {
      if (unloading) {
        clearTimeout(timer);
        timer = 0;
      } else {
        timer = 0;
        if (busy) return;
      }
      if (!queue.length) return;
      var batch = queue.splice(0, MAX_BATCH);
      // Absent fields (undefined) are left out. A denial's batch still names the visitor (so its
      // identity can be undone); none after it.
      var body = JSON.stringify({ site: site, vid: vid || undefined, consent: consent || undefined, gpc: gpc || undefined, events: batch });
      if (consent === 'denied') vid = null;
      if (unloading && navigator.sendBeacon && navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain' }))) return flush(true);
      busy = true;
      fetch(endpoint, { method: 'POST', body: body, credentials: 'include', keepalive: true, headers: { 'content-type': 'text/plain' } })
        .then(
          function (response) {
            if (response.ok) {
              attempts = 0;
              // The vid is kept before the next batch goes, so that one carries it.
              return response.json().then(function (answer) {
                if (answer && /^[0-9a-f]{24}$/.test(answer.vid)) save(answer.vid);
              }, noop);
            }
            // Other 4xx answers will not change on a retry: the batch is dropped.
            if (response.status === 429 || response.status >= 500) retry(batch, Number(response.headers.get('retry-after')));
          },
          function () {
            retry(batch, 0);
          },
        )
        .then(function () {
          busy = false;
          if (queue.length) schedule(0);
        })
        .catch(noop);
    } catch (e) {
      busy = false;
    }
  }

  /** Puts a failed batch back in front, after a full-jitter exponential back-off (or Retry-After). */
  function retry(/** @type {any[]} */ batch, /** @type {number} */ retryAfterSeconds) {
    if (++attempts >= MAX_ATTEMPTS) {
      attempts = 0;
      return;
    }
    queue = batch.concat(queue).slice(0, MAX_QUEUE);
    clearTimeout(timer);
    timer = setTimeout(flush, Math.max((retryAfterSeconds || 0) * 1000, Math.random() * Math.min(30000, 500 * Math.pow(2, attempts))));
  }

  function save(/** @type {string} */ id) {
    if (/^[pd]/.test(consent)) return;
    vid = id;
    try {
      localStorage.setItem(STORE, id);
    } catch (e) {
      // Storage refused (private mode, blocked): the server's cookie still holds the id.
    }
  }

  /** Adds the visible time since the clock last started; reports it (if a whole second) for the page. */
  function engagement(/** @type {boolean} */ report) {
    if (visibleSince) visibleMs += Date.now() - visibleSince;
    visibleSince = document.visibilityState === 'visible' ? Date.now() : 0;
    var seconds = Math.round(visibleMs / 1000);
    if (report && pageViewId && seconds > 0) {
      visibleMs -= seconds * 1000;
      push({ type: 'engagement', pageViewId: pageViewId, seconds: Math.min(seconds, 1800) });
    }
  }

  /** Counts the current location as a page view unless its path and query are the page counted last. */
  function page(/** @type {string} */ referrer) {
    var key = location.pathname + location.search;
    if (key === lastPage) return;
    if (pageViewId) engagement(true);
    lastPage = key;
    pageViewId = newId();
    visibleMs = 0;
    visibleSince = document.visibilityState === 'visible' ? Date.now() : 0;
    var query = new URLSearchParams(location.search);
    /** @type {Record<string, string>} */
    var utm = {};
    var tagged = false;
    ['source', 'medium', 'campaign', 'term', 'content'].forEach(function (name) {
      var value = query.get('utm_' + name);
      if (value) {
        utm[name] = value.slice(0, 256);
        tagged = true;
      }
    });
    push({
      type: 'pageview',
      id: pageViewId,
      url: cut(location.href, 4096),
      path: cut(location.pathname, 2048),
      title: cut(document.title, 512),
      referrer: cut(referrer, 2048) || undefined,
      utm: tagged ? utm : undefined,
    });
    pageUrl = location.href;
  }

  function navigated() {
    try {
      page(pageUrl);
    } catch (e) {
      // never into the page
    }
  }

  function hidden() {
    try {
      engagement(true);
      flush(true);
    } catch (e) {
      // never into the page
    }
  }

  /** From now on cookieless and unidentifiable: a visitor that had an id says so once, and the stored id goes. */
  function deny() {
    if (vid || consent === 'granted') push({ type: 'consent', state: 'denied' });
    consent = 'denied';
    held = [];
    try {
      localStorage.removeItem(STORE);
    } catch (e) {
      // nothing stored
    }
  }

  /** The email of a submitted form with an email field: never a password field, nothing marked data-glimpse-ignore. */
  function submitted(/** @type {any} */ e) {
    try {
      var form = e.target;
      if (form.closest('[data-glimpse-ignore]')) return;
      for (var field of form.elements) {
        var value = (field.value + '').trim();
        var names = [field.type, field.name, field.id, field.autocomplete].join(' ');
        // An email: an '@' with a character on each side, no whitespace (as /^\S+@\S+$/, without its backtracking over runs of '@').
        if (/email/i.test(names) && !/pass/i.test(names) && /.@./.test(value) && !/\s/.test(value) && !field.closest('[data-glimpse-ignore]'))
          return personal({ type: 'identify', method: 'form', email: cut(value, 254), path: cut(location.pathname, 2048) });
      }
    } catch (err) {
      // never into the page
    }
  }

  /** The page's API: glimpse('identify', {email, ...traits}), glimpse('track', name, properties), glimpse('consent', 'granted' | 'denied'). */
  function glimpse(/** @type {string} */ command, /** @type {any} */ a, /** @type {any} */ b) {
    try {
      if (command === 'identify' && a && a.email)
        personal({ type: 'identify', email: String(a.email), traits: flat(a, 'email'), path: cut(location.pathname, 2048) });
      if (command === 'track' && a) personal({ type: 'track', event: String(a), properties: flat(b) });
      if (command === 'consent') {
        if (a === 'denied' && consent !== 'denied') deny();
        // Granted after pending or a denial (never against GPC): the server mints the id and stitches today's cookieless views.
        if (a === 'granted' && !gpc && /^[pd]/.test(consent)) {
          consent = a;
          push({ type: 'consent', state: a });
          held.forEach(push);
          held = [];
        }
      }
    } catch (e) {
      // never into the page
    }
  }
  glimpse.visitorId = function () {
    return vid;
  };

  try {
    var script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
    site = (script && script.getAttribute('data-site')) || '';
    // Installed twice, or without a site key: the first copy (or nothing) runs.
    if (!site || (w.glimpse && w.glimpse.visitorId)) return;
    endpoint = new URL(script.src).origin + '/collect';
    if (script.getAttribute('data-consent') === 'required') consent = 'pending';
    try {
      var stored = localStorage.getItem(STORE);
      // Only a grant stores an id, so a stored one on a consent-required site is a grant already given.
      if (stored && /^[0-9a-f]{24}$/.test(stored)) {
        vid = stored;
        if (consent) consent = 'granted';
      }
    } catch (e) {
      // no storage: the cookie alone carries the id
    }
    if (w.navigator.globalPrivacyControl && script.getAttribute('data-honor-gpc') !== 'false') {
      gpc = true;
      deny();
    }
    // An email link's token leaves the address bar before anything (the page view's URL included) sees it.
    var token = new URLSearchParams(location.search).get('gl');
    if (token) history.replaceState(history.state, '', location.pathname + location.search.replace(/[?&]gl=[^&]*/, '').replace(/^&/, '?') + location.hash);
    var calls = (w.glimpse && w.glimpse.q) || [];
    w.glimpse = glimpse;

    ['pushState', 'replaceState'].forEach(function (name) {
      var original = history[name];
      if (typeof original !== 'function') return;
      history[name] = function () {
        var result = original.apply(this, arguments);
        navigated();
        return result;
      };
    });
    w.addEventListener('popstate', navigated);
    w.addEventListener('pagehide', hidden);
    if (script.getAttribute('data-capture-forms') === 'true') document.addEventListener('submit', submitted, true);
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') hidden();
      else engagement(false);
    });

    page(document.referrer);
    if (token) personal({ type: 'link', token: cut(token, 1024), path: cut(location.pathname, 2048) });
    calls.forEach(function (/** @type {any} */ c) {
      glimpse.apply(null, c);
    });
  } catch (e) {
    // never into the page
  }
})();
