/* global GLIMPSE_SETTINGS */
// Glimpse's site tag, served minified per site at /s/glp_….js with the site's settings passed in
// (installed as <script async src="{base}/s/glp_….js"></script>), and as /g.js for the older snippet
// (<script async src="{base}/g.js" data-site="glp_…" data-…></script>: no settings passed, the
// attributes say them). Attributes may only make the tag stricter than the settings passed in:
// consent required beats implied, forms are captured only if both allow, GPC is honoured if either
// says so. It counts page views (first load and
// single-page-app navigations, each once), the visible time spent on each, and the page's
// glimpse('identify', …) and glimpse('track', …) calls, and posts them in small batches to
// {base}/collect. It also identifies by the email of a submitted form (data-capture-forms="true")
// and by an email link's ?gl= token, and follows the visitor's consent (data-consent="required",
// glimpse('consent', 'granted' | 'denied'), Global Privacy Control). It sends a page's path, its UTM
// parameters and the query keys the site allows, never a fragment; a referrer's origin and path only.
// What it stores is per site key (_glv:<key> = {v: visitor id, g: consent granted on this site}), so
// an id stored by another site on the origin, or before the site required consent, is not a grant.
// Whatever happens, nothing is thrown into the host page: every entry point (the load, the API,
// the listeners, the history wrappers' own part) swallows its errors.
(function (/** @type {any} */ settings) {
  'use strict';
  /** @type {any} */
  var w = window;
  // The site's settings, from the per-site script; none from /g.js.
  var S = settings || {};
  var STORE = '';
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
  /** @type {any[]} this page load's page views sent while consent was pending, credited to the visitor a grant mints */
  var pendingViews = [];
  // Consent was granted on this site (stored with the id).
  var granted = 0;
  /** @type {string[]} the query keys the site allows besides utm_* */
  var queryKeys = S.query || [];

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
   * @param {RegExp} [skip]
   */
  function flat(input, skip) {
    /** @type {Record<string, string | number | boolean>} */
    var out = {};
    if (!input || typeof input !== 'object' || Array.isArray(input)) return out;
    for (var key in input) {
      var value = input[key];
      if (!(skip && skip.test(key)) && (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && isFinite(value))))
        out[key] = value;
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
      var body = JSON.stringify({
        site: site,
        vid: vid || undefined,
        consent: consent || undefined,
        gpc: w.navigator.globalPrivacyControl || undefined,
        events: batch,
      });
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
      localStorage.setItem(STORE, JSON.stringify({ v: id, g: granted }));
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

  /**
   * The address as sent: origin and path, with the UTM parameters and the site's allowed query keys
   * when `query`; never a fragment. Undefined for what is no URL.
   * @param {string} href @param {boolean} [query]
   */
  function trim(href, query) {
    try {
      var url = new URL(href);
      var kept = new URLSearchParams();
      url.searchParams.forEach(function (value, key) {
        if (query && (/^utm_/.test(key) || queryKeys.indexOf(key) >= 0)) kept.append(key, value);
      });
      var search = kept + '';
      return url.origin + url.pathname + (search && '?' + search);
    } catch (e) {
      // no URL (an empty referrer)
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
    var path = cut(location.pathname, 2048);
    push({
      type: 'pageview',
      id: pageViewId,
      url: cut(trim(location.href, true), 4096),
      path: path,
      title: cut(document.title, 512),
      referrer: cut(trim(referrer), 2048),
      utm: tagged ? utm : undefined,
    });
    if (consent === 'pending' && pendingViews.length < 20) pendingViews.push({ id: pageViewId, path: cut(path, 512), at: new Date().toISOString() });
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
    pendingViews = [];
    granted = 0;
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
        personal({ type: 'identify', email: String(a.email), hash: cut(a.hash, 128), traits: flat(a, /^(email|hash)$/), path: cut(location.pathname, 2048) });
      if (command === 'track' && a) personal({ type: 'track', event: String(a), properties: flat(b) });
      if (command === 'consent') {
        if (a === 'denied' && consent !== 'denied') deny();
        if (a === 'granted' && !gpc && !granted) {
          granted = 1;
          // Granted after pending or a denial (never against GPC): the server mints the id and credits it this page load's views.
          if (/^[pd]/.test(consent)) {
            consent = a;
            push({ type: 'consent', state: a, views: pendingViews.length ? pendingViews : undefined });
            held.forEach(push);
            held = [];
            pendingViews = [];
          } else if (vid) save(vid);
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
    var script = /** @type {HTMLScriptElement} */ (document.currentScript);
    var attr = function (/** @type {string} */ name) {
      return script.getAttribute('data-' + name);
    };
    site = S.site || attr('site') || '';
    // Installed twice, or without a site key: the first copy (or nothing) runs.
    if (!site || (w.glimpse && w.glimpse.visitorId)) return;
    endpoint = new URL(script.src).origin + '/collect';
    STORE = '_glv:' + site;
    if (S.consent === 'required' || attr('consent') === 'required') consent = 'pending';
    try {
      var stored = JSON.parse(localStorage.getItem(STORE) || '{}');
      // An id stored on an implied site is no grant: a consent-required site takes only one stored with its grant.
      if (/^[0-9a-f]{24}$/.test(stored.v) && (!consent || stored.g)) {
        vid = stored.v;
        granted = stored.g;
        if (consent) consent = 'granted';
      }
    } catch (e) {
      // no storage: the cookie alone carries the id
    }
    var honorGpc = attr('honor-gpc');
    if (w.navigator.globalPrivacyControl && (S.site ? S.gpc || honorGpc === 'true' : honorGpc !== 'false')) {
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
    var forms = attr('capture-forms');
    if (S.site ? S.forms && forms !== 'false' : forms === 'true') document.addEventListener('submit', submitted, true);
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
  // The gateway writes the site's settings here (tag-asset.ts), or nothing for /g.js.
})(GLIMPSE_SETTINGS);
