// CPU accounting for a phase: how busy the whole machine was and how much of it our processes
// used. On a shared 2-core box the remainder (brokers, databases, anything else running) matters.
'use strict';
const fs = require('node:fs');
const os = require('node:os');

const CLOCK_TICKS_PER_SEC = 100; // USER_HZ: 100 on every Linux we run on

function machineTicks() {
  return os.cpus().reduce(
    (acc, c) => {
      const t = c.times;
      acc.total += t.user + t.nice + t.sys + t.idle + t.irq;
      acc.idle += t.idle;
      return acc;
    },
    { total: 0, idle: 0 },
  );
}

/** CPU seconds used by a process so far (Linux /proc), or null when unreadable. */
function processCpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SEC; // utime, stime
  } catch {
    return null;
  }
}

/** CPU seconds per pid of a group of processes; a process that is gone is left out. */
function groupCpuSeconds(pids) {
  const byPid = new Map();
  for (const pid of [].concat(pids)) {
    const s = processCpuSeconds(pid);
    if (s !== null) byPid.set(pid, s);
  }
  return byPid;
}

/** CPU seconds a group used between two readings, over the processes present in both. */
function groupDelta(before, after) {
  let sum = null;
  for (const [pid, s] of after) if (before.has(pid)) sum = (sum ?? 0) + s - before.get(pid);
  return sum;
}

/** Pids of the local infrastructure by process name: postgres (all backends), redis-server, the Kafka JVM. */
function infraPids() {
  const groups = { postgres: [], redis: [], kafka: [] };
  let entries;
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return groups;
  }
  for (const pid of entries) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm === 'postgres') groups.postgres.push(Number(pid));
      else if (comm === 'redis-server') groups.redis.push(Number(pid));
      else if (comm === 'java' && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('kafka')) groups.kafka.push(Number(pid));
    } catch {
      /* gone meanwhile */
    }
  }
  return groups;
}

/**
 * Call at the start of a phase with { name: pid | pid[] }; the returned function gives the phase's
 * usage: machine busy % and, per name, percent of one core (as top shows it), plus "other".
 */
function startCpuMeter(pids) {
  const t0 = performance.now();
  const m0 = machineTicks();
  const p0 = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, groupCpuSeconds(pid)]));
  return () => {
    const wallSec = (performance.now() - t0) / 1000;
    const m1 = machineTicks();
    const total = m1.total - m0.total;
    const cores = os.cpus().length;
    const usage = {
      wallSec: Math.round(wallSec * 10) / 10,
      machineBusyPct: total > 0 ? Math.round((1 - (m1.idle - m0.idle) / total) * 1000) / 10 : null,
      coresPct: {},
    };
    for (const [name, pid] of Object.entries(pids)) {
      const used = groupDelta(p0[name], groupCpuSeconds(pid));
      if (used === null) continue;
      usage.coresPct[name] = Math.round((used / wallSec) * 1000) / 10;
    }
    const ours = Object.values(usage.coresPct).reduce((s, v) => s + v, 0);
    if (usage.machineBusyPct !== null) usage.coresPct.other = Math.round((usage.machineBusyPct * cores - ours) * 10) / 10;
    return usage;
  };
}

module.exports = { startCpuMeter, processCpuSeconds, infraPids };
