// The browser the console's tests drive: Debian's chromium. npm test installs it when it is missing
// (as root, or with password-less sudo), so a fresh machine needs nothing beyond `npm install`.
'use strict';
const fs = require('node:fs');
const { log, secs, run } = require('./util');

const HELP = `Usage: node scripts/infra/chromium.js [--help]

Makes sure Chromium is at CHROMIUM_PATH (default /usr/bin/chromium) for the console's browser tests:
when it is missing and this is Debian/Ubuntu, installs the "chromium" package with apt-get (as root,
or through password-less sudo); otherwise explains what to install. npm test calls it.`;

async function canSudo() {
  const res = await run('sudo', ['-n', 'true']).catch(() => ({ status: 1 }));
  return res.status === 0;
}

async function aptGet(asRoot, args) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const res = asRoot ? await run('apt-get', args, { env }) : await run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { env });
  if (res.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${res.status}):\n${res.output.split('\n').slice(-15).join('\n')}`);
}

/** Resolves once `chromiumPath` exists, installing Debian's package when it can. */
async function ensureChromium(chromiumPath) {
  if (fs.existsSync(chromiumPath)) return;
  const hint = `install Chromium (Debian/Ubuntu: apt-get install -y chromium) or set CHROMIUM_PATH to one`;
  if (chromiumPath !== '/usr/bin/chromium') throw new Error(`chromium: CHROMIUM_PATH=${chromiumPath} does not exist; ${hint}`);
  if (!fs.existsSync('/usr/bin/apt-get')) throw new Error(`chromium: ${chromiumPath} is missing and this is not a Debian-like system; ${hint}`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!asRoot && !(await canSudo())) throw new Error(`chromium: ${chromiumPath} is missing and installing it needs root; ${hint}`);
  const t0 = Date.now();
  log("chromium: not installed; installing Debian's chromium package for the browser tests (once)…");
  await aptGet(asRoot, ['update', '-q']);
  await aptGet(asRoot, ['install', '-y', '-q', '--no-install-recommends', 'chromium']);
  if (!fs.existsSync(chromiumPath)) throw new Error(`chromium: the package installed but ${chromiumPath} is still missing`);
  log(`chromium: installed (${secs(t0)})`);
}

module.exports = { ensureChromium };

if (require.main === module) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(HELP);
    process.exit(0);
  }
  const { chromiumPath } = require('./env').readEnv();
  ensureChromium(chromiumPath).then(
    () => log(`chromium: ok, ${chromiumPath}`),
    (err) => {
      log(err.message);
      process.exit(1);
    },
  );
}
