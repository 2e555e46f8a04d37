// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: self time by area
// (package, node internals, our code, GC, idle) and the hottest functions.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function areaOf(url, functionName) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'program (native, unattributed)';
    return functionName || 'native';
  }
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (modules) return modules.at(-1).replace('node_modules/', '');
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  // WebAssembly has no package in its URL (Prisma's query compiler is one).
  if (url.startsWith('wasm://')) return `wasm ${path.basename(url)}`;
  const own = url.match(/\/(shared|services|tools)\/([^/]+)\//);
  if (own) return `@glimpse/${own[2]}`;
  return path.basename(url);
}

/**
 * Self time per area and per function, as percentages of the busy (non-idle) time. `window`
 * ({ startUs, endUs } on the monotonic clock, i.e. process.hrtime.bigint() / 1000n in any process
 * of this machine, which is what V8 stamps samples with) keeps only the samples inside it.
 */
/** @param {string} file @param {{ top?: number, window?: { startUs?: number, endUs?: number } | null }} [options] @returns {any} */
function summarizeProfile(file, { top = 15, window } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const { samples, timeDeltas } = profile;
  let t = profile.startTime;
  for (let i = 0; i < samples.length; i += 1) {
    t += timeDeltas[i];
    if (window && (t < window.startUs || t > window.endUs)) continue;
    // A sample's delta is the time until the next sample, so it belongs to this one.
    const dt = timeDeltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
  }
  let idleUs = 0;
  for (const [id, us] of selfUs) if (byId.get(id).callFrame.functionName === '(idle)') idleUs += us;
  const all = [...selfUs.values()].reduce((s, v) => s + v, 0);
  const total = all - idleUs || 1;
  // Node internals and native frames (socket writes, hashing) are charged to the nearest caller
  // that is a package or our code: "who made the process do this", which self time alone hides.
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const ownerCache = new Map();
  const ownerOf = (id) => {
    if (ownerCache.has(id)) return ownerCache.get(id);
    let owner = null;
    for (let cur = id; cur !== undefined && owner === null; cur = parentOf.get(cur)) {
      const { url } = byId.get(cur).callFrame;
      if (url && !url.startsWith('node:')) owner = areaOf(url, '');
    }
    const { callFrame } = byId.get(id);
    owner ??= areaOf(callFrame.url, callFrame.functionName);
    ownerCache.set(id, owner);
    return owner;
  };
  const areas = new Map();
  const owners = new Map();
  const functions = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    const area = areaOf(callFrame.url, callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const owner = ownerOf(id);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const where = callFrame.url ? `${areaOf(callFrame.url, '')}:${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const pct = (us) => Math.round((us / total) * 1000) / 10;
  const sorted = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfPct: pct(us) }));
  return {
    file,
    profiledMs: Math.round(all / 1000),
    busyMs: Math.round(total / 1000),
    idlePct: all ? Math.round((idleUs / all) * 1000) / 10 : null,
    areas: sorted(areas),
    owners: sorted(owners),
    functions: sorted(functions),
  };
}

function formatProfile(s) {
  const rows = (list) => list.map((r) => `    ${String(r.selfPct).padStart(5)} %  ${r.name}`).join('\n');
  return (
    `  ${s.file}\n  ${s.profiledMs} ms profiled, ${s.idlePct} % idle; shares below are of the ${s.busyMs} ms busy\n` +
    `  self time by area:\n${rows(s.areas)}\n` +
    `  by caller (node internals and native work charged to the nearest package or own code above them):\n${rows(s.owners)}\n` +
    `  hottest functions (self):\n${rows(s.functions)}`
  );
}

module.exports = { summarizeProfile, formatProfile };
