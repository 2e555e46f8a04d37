// Glimpse's site tag, served minified at /g.js and installed as
// <script async src="{base}/g.js" data-site="glp_…"></script>. It counts page views (first load and
// single-page-app navigations, each once), the visible time spent on each, and the page's
// glimpse('identify', …) and glimpse('track', …) calls, and posts them in small batches to
// {base}/collect. Whatever happens, nothing is thrown into the host page: every entry point (the
// load, the API, the listeners, the history wrappers' own part) swallows its errors.
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
      /** @type {any} */
      var body = { site: site, events: batch };
      if (vid) body.vid = vid;
      body = JSON.stringify(body);
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

  /** The page's API: glimpse('identify', {email, ...traits}), glimpse('track', name, properties). */
  function glimpse(/** @type {string} */ command, /** @type {any} */ a, /** @type {any} */ b) {
    try {
      if (command === 'identify' && a && a.email) push({ type: 'identify', email: String(a.email), traits: flat(a, 'email'), path: cut(location.pathname, 2048) });
      if (command === 'track' && a) push({ type: 'track', event: String(a), properties: flat(b) });
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
    try {
      var stored = localStorage.getItem(STORE);
      if (stored && /^[0-9a-f]{24}$/.test(stored)) vid = stored;
    } catch (e) {
      // no storage: the cookie alone carries the id
    }
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
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') hidden();
      else engagement(false);
    });

    page(document.referrer);
    for (var i = 0; i < calls.length; i++) glimpse.apply(null, calls[i]);
  } catch (e) {
    // never into the page
  }
})();
