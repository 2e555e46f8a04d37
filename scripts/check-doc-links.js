#!/usr/bin/env node
// node scripts/check-doc-links.js: every relative link in the repository's Markdown files leads to a
// file that exists and, when it names an #anchor in a Markdown file, to a heading (or an <a id>) of
// that file. Links inside code spans and fenced blocks are not links; absolute URLs are not checked
// (no network here). Exits 1 and names each broken link.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: node scripts/check-doc-links.js   (run by npm run lint)

Checks that every relative link in the repository's Markdown files leads to a file that exists and,
when it names an #anchor of a Markdown file, to one of its headings (or an <a id>). Code spans,
fenced blocks and absolute URLs are not checked. Exits 1 and names each broken link.`);
  process.exit(0);
}

/** The Markdown files git knows of or would add (tracked and untracked, ignored ones left out). */
function markdownFiles() {
  const out = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\n').filter((f) => f && !f.includes('node_modules/') && fs.existsSync(path.join(ROOT, f)));
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .replace(/\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replaceAll('`', '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

const anchorCache = new Map();
function anchorsOf(file) {
  if (!anchorCache.has(file)) {
    const anchors = new Set();
    const seen = new Map();
    let fenced = false;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      if (fenced) continue;
      for (const m of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
      const h = /^#{1,6} (.*)$/.exec(line);
      if (h) {
        const a = slug(h[1]);
        const n = seen.get(a) ?? 0;
        seen.set(a, n + 1);
        anchors.add(n === 0 ? a : `${a}-${n}`);
      }
    }
    anchorCache.set(file, anchors);
  }
  return anchorCache.get(file);
}

function brokenLinks(file) {
  const text = fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  const broken = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('<')) continue;
    const hash = target.indexOf('#');
    const linkPath = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? '' : target.slice(hash + 1);
    const resolved = linkPath ? path.resolve(ROOT, path.dirname(file), linkPath) : path.join(ROOT, file);
    if (!fs.existsSync(resolved)) broken.push(`${file}: ${target}: no such file`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${target}: no such heading`);
  }
  return broken;
}

const files = markdownFiles();
const broken = files.flatMap(brokenLinks);
for (const b of broken) console.error(b);
console.log(`${files.length} Markdown files, ${broken.length} broken relative links`);
process.exit(broken.length ? 1 : 0);
