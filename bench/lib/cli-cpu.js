// Runs the operator CLI (tools/cli/dist/main.js) in this process, as bin/glimpse.js does, and when
// the process exits writes the CPU it used to the file BENCH_CPU_FILE names: a benchmark's way to
// count the CLI's own CPU, which /proc no longer shows once the process is gone.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const cpuFile = process.env.BENCH_CPU_FILE;
process.on('exit', () => {
  if (!cpuFile) return;
  const { user, system } = process.cpuUsage();
  fs.writeFileSync(cpuFile, JSON.stringify({ cpuMs: (user + system) / 1000, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
});

require(path.join(__dirname, '..', '..', 'tools', 'cli', 'dist', 'main.js')).main();
