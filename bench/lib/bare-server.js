// The baseline: a bare express 5 endpoint on loopback that parses JSON and answers {ok:true}.
// Run as a child process (node bench/lib/bare-server.js) with PORT set; exits 0 on SIGTERM.
'use strict';
const express = require('express');

const app = express();
app.disable('x-powered-by');
app.post('/bare', express.json(), (_req, res) => {
  res.json({ ok: true });
});
app.get('/bare', (_req, res) => {
  res.json({ ok: true });
});
app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1', (err) => {
  if (err) {
    console.error(err.message);
    process.exit(1);
  }
});
server.keepAliveTimeout = 65_000;

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
