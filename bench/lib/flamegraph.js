// A V8 .cpuprofile (node --cpu-prof) drawn as a flame graph SVG: one box per function on a stack,
// as wide as the time spent in it and its callees, callers below callees; the same stack merged
// however often it was sampled. Idle time is left out, and `window` keeps only the samples inside
// it (as in cpu-profile.js), so the picture is of one phase of a benchmark.
//   node bench/lib/flamegraph.js <file.cpuprofile> <out.svg> [--start <us>] [--end <us>] [--title <text>]
//                                [--events <n> (the caption then gives the CPU per event)]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const WIDTH = 1200;
const ROW = 16;
const FONT = 11;
/** Boxes narrower than this many pixels are not drawn (their time is still in their callers' width). */
const MIN_PX = 0.5;

/** A frame's label: the function and where it is (package or own file, line). */
function labelOf({ functionName, url, lineNumber }) {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/);
  const where = pkg ? `${pkg[1]}/${path.basename(pkg[2])}` : url.startsWith('node:') ? url : url.replace(/^.*\/(shared|services|tools)\//, '$1/');
  return `${name} ${where}:${lineNumber + 1}`;
}

/** Colours by who runs the code: ours warm, packages green, node blue, native and GC grey. */
function colourOf(url, functionName) {
  const shade = (h, s, l) => `hsl(${h},${s}%,${l}%)`;
  const jitter = [...(functionName || url || '?')].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 997, 7) % 15;
  if (!url) return shade(0, 0, 70 + (jitter % 10));
  if (url.includes('node_modules/')) return shade(95 + jitter * 2, 45, 55);
  if (url.startsWith('node:')) return shade(200 + jitter, 55, 65);
  return shade(20 + jitter * 2, 85, 60);
}

/** The merged call tree of the samples in `window`: { label, url, fn, us, children: Map }. */
function mergedTree(profile, window) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const root = { label: 'all', url: '', fn: 'all', us: 0, children: new Map() };
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t += profile.timeDeltas[i];
    if (window && (t < window.startUs || t > window.endUs)) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(profile.samples[i]);
    if (leaf.callFrame.functionName === '(idle)') continue;
    const stack = [];
    for (let id = leaf.id; id !== undefined; id = parentOf.get(id)) stack.push(byId.get(id).callFrame);
    stack.pop(); // V8's (root)
    root.us += dt;
    let node = root;
    for (const frame of stack.reverse()) {
      const label = labelOf(frame);
      let child = node.children.get(label);
      if (!child) node.children.set(label, (child = { label, url: frame.url, fn: frame.functionName, us: 0, children: new Map() }));
      child.us += dt;
      node = child;
    }
  }
  return root;
}

const escapeXml = (s) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The SVG of `tree`; the root is the bottom row (a flame graph, callers below). */
function render(tree, title, events) {
  const boxes = [];
  let depth = 0;
  const pxPerUs = tree.us > 0 ? WIDTH / tree.us : 0;
  (function place(node, x, level) {
    const w = node.us * pxPerUs;
    if (w < MIN_PX) return;
    depth = Math.max(depth, level);
    boxes.push({ node, x, w, level });
    let cx = x;
    for (const child of [...node.children.values()].sort((a, b) => (a.label < b.label ? -1 : 1))) {
      place(child, cx, level + 1);
      cx += child.us * pxPerUs;
    }
  })(tree, 0, 0);
  const top = 40;
  const height = top + (depth + 1) * ROW + 10;
  const y = (level) => height - 10 - (level + 1) * ROW;
  const maxChars = (w) => Math.floor((w - 6) / (FONT * 0.6));
  const rects = boxes.map(({ node, x, w, level }) => {
    const pct = ((node.us / tree.us) * 100).toFixed(1);
    const tip = `${node.label} — ${(node.us / 1000).toFixed(1)} ms, ${pct} %`;
    const n = maxChars(w);
    const text = n >= 3 ? (node.label.length <= n ? node.label : `${node.label.slice(0, n - 2)}..`) : '';
    return (
      `<g><title>${escapeXml(tip)}</title><rect x="${x.toFixed(2)}" y="${y(level)}" width="${w.toFixed(2)}" height="${ROW - 1}" rx="2" fill="${colourOf(node.url, node.fn)}"/>` +
      (text ? `<text x="${(x + 3).toFixed(2)}" y="${y(level) + ROW - 4}">${escapeXml(text)}</text>` : '') +
      '</g>'
    );
  });
  const perEvent = events ? ` for ${events} events, ${(tree.us / 1000 / events).toFixed(3)} ms each` : '';
  const caption = `${(tree.us / 1000).toFixed(0)} ms of CPU${perEvent} (idle left out); width = time in a function and its callees. Ours orange, packages green, node blue, native grey.`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="monospace" font-size="${FONT}">
<rect width="100%" height="100%" fill="#fff"/>
<text x="${WIDTH / 2}" y="16" text-anchor="middle" font-size="14">${escapeXml(title)}</text>
<text x="${WIDTH / 2}" y="32" text-anchor="middle" fill="#555">${escapeXml(caption)}</text>
${rects.join('\n')}
</svg>
`;
}

/** Writes the flame graph of `file` (the samples in `window`, when given) to `out`. */
function writeFlameGraph(file, out, { window = null, title = path.basename(file), events = 0 } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, render(mergedTree(profile, window), title, events));
  return out;
}

if (require.main === module) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { start: { type: 'string' }, end: { type: 'string' }, title: { type: 'string' }, events: { type: 'string' } },
  });
  if (positionals.length !== 2) {
    console.error('usage: node bench/lib/flamegraph.js <file.cpuprofile> <out.svg> [--start <us>] [--end <us>] [--title <text>] [--events <n>]');
    process.exit(2);
  }
  const window = values.start || values.end ? { startUs: Number(values.start ?? 0), endUs: Number(values.end ?? Infinity) } : null;
  console.log(writeFlameGraph(positionals[0], positionals[1], { window, title: values.title, events: Number(values.events ?? 0) }));
}

module.exports = { writeFlameGraph };
