// A small demo website for npm start: three pages with the Glimpse tag installed, so a new user
// can browse it and then find themselves in the console's Visitors page and the details lookup.
// One page navigates like a single-page app (pushState), one identifies the visitor by a form.
'use strict';
const http = require('node:http');

/** @param {string} s */
const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * @param {{ gatewayUrl: string, siteKey: string, title: string, body: string }} page
 */
function render({ gatewayUrl, siteKey, title, body }) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Glimpse demo site</title>
<script async src="${escapeHtml(gatewayUrl)}/g.js" data-site="${escapeHtml(siteKey)}"></script>
<script src="/stub.js"></script>
</head><body>
<nav><a href="/">Home</a> · <a href="/pricing?utm_source=demo&amp;utm_campaign=launch">Pricing</a> · <a href="/app">App (pushState)</a> · <a href="/contact">Contact</a></nav>
<h1>${escapeHtml(title)}</h1>
${body}
<p id="vid"></p>
<script src="/page.js"></script>
</body></html>`;
}

// No inline script: the pages could run under a strict Content-Security-Policy.
const STUB = 'window.glimpse = window.glimpse || function(){(glimpse.q = glimpse.q || []).push(arguments)};';
const PAGE_JS = `
(function () {
  var out = document.getElementById('vid');
  setInterval(function () {
    var vid = window.glimpse && window.glimpse.visitorId ? window.glimpse.visitorId() : null;
    out.textContent = vid ? 'Your visitor id: ' + vid : 'Waiting for a visitor id…';
  }, 500);
  var app = document.getElementById('app');
  if (app) app.addEventListener('click', function (e) {
    var t = e.target;
    if (t && t.dataset && t.dataset.path) { history.pushState({}, '', t.dataset.path); document.title = t.dataset.path + ' · App'; }
  });
  var form = document.getElementById('contact');
  if (form) form.addEventListener('submit', function (e) {
    e.preventDefault();
    glimpse('identify', { email: form.elements.email.value });
    form.insertAdjacentText('afterend', 'Thanks: this visitor is now identified.');
  });
})();`;

const PAGES = {
  '/': { title: 'Home', body: "<p>Browse the pages, then open the console's Visitors page.</p>" },
  '/pricing': { title: 'Pricing', body: '<p>Three plans. This link carried UTM parameters.</p>' },
  '/app': {
    title: 'App',
    body: '<div id="app"><button data-path="/app/one">Go to /app/one</button> <button data-path="/app/two">Go to /app/two</button></div>',
  },
};

/** @param {string} email a person of the demo dataset, so the details lookup has a name and a company to show */
const contactPage = (email) => ({
  title: 'Contact',
  body: `<form id="contact"><label>Email <input name="email" type="email" required value="${escapeHtml(email)}"></label> <button>Send</button></form>`,
});

/**
 * @param {{ port: number, host?: string, gatewayUrl: string, siteKey: string, sampleEmail: string }} options
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
function startDemoSite({ port, host = '127.0.0.1', gatewayUrl, siteKey, sampleEmail }) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/stub.js' || path === '/page.js') {
      res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8' });
      res.end(path === '/stub.js' ? STUB : PAGE_JS);
      return;
    }
    const page = path === '/contact' ? contactPage(sampleEmail) : PAGES[/** @type {keyof typeof PAGES} */ (path.startsWith('/app') ? '/app' : path)];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'self'; script-src 'self' ${gatewayUrl}; connect-src ${gatewayUrl}`,
    });
    res.end(render({ gatewayUrl, siteKey, ...page }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({
        url: `http://${host}:${port}`,
        close: () => new Promise((r) => server.close(() => r(undefined))),
      });
    });
  });
}

module.exports = { startDemoSite };
