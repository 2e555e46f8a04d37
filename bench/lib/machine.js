// What the figures were measured on: they mean little without it.
'use strict';
const os = require('node:os');

function machineInfo(now = new Date()) {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0] ? cpus[0].model.trim() : 'unknown',
    cpuCount: cpus.length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    date: now.toISOString(),
  };
}

function formatMachine(m) {
  return [
    `cpu      ${m.cpuCount} x ${m.cpuModel} (available parallelism ${m.availableParallelism})`,
    `memory   ${m.totalMemoryGiB} GiB`,
    `node     ${m.node}`,
    `os       ${m.os}`,
    `load     ${m.loadAverage.join(' ')} (1/5/15 min, before the run)`,
    `date     ${m.date}`,
  ].join('\n');
}

module.exports = { machineInfo, formatMachine };
