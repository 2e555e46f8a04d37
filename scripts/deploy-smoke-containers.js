// Runs images for deploy:smoke: with docker where a daemon answers, otherwise with buildah's own
// runner (chroot isolation, host network), which works where podman's OCI runtime cannot set
// resource limits (as in this workplace's sandbox). buildah does not pass signals on to the
// container, so SIGTERM goes to the container's first process itself, found by its parent chain.
'use strict';
const fs = require('node:fs');
const { spawn, spawnSync } = require('node:child_process');

function must(bin, args, opts = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 16 << 20, ...opts });
  if (r.status !== 0 && !opts.allowFail)
    throw new Error(`${bin} ${args.slice(0, 5).join(' ')} … failed (${r.status}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-8).join('\n')}`);
  return r;
}

const envFlags = (env) => Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
const tail = (text, n) => text.trimEnd().split('\n').slice(-n).join('\n');

function dockerRunner() {
  return {
    kind: 'docker',
    hasImage: (ref) => must('docker', ['image', 'inspect', ref], { allowFail: true }).status === 0,
    once: (image, { env, cmd = [], mounts = [] }) =>
      must('docker', ['run', '--rm', '--network', 'host', ...mounts.flatMap((m) => ['-v', m]), ...envFlags(env), image, ...cmd]),
    start: (name, image, { env }) => must('docker', ['run', '-d', '--name', name, '--network', 'host', ...envFlags(env), image]),
    stop(name) {
      const t = Date.now();
      must('docker', ['kill', '--signal', 'TERM', name]);
      const code = Number(must('docker', ['wait', name]).stdout.trim());
      return { code, ms: Date.now() - t };
    },
    logs: (name, n) => {
      const r = must('docker', ['logs', '--tail', String(n), name], { allowFail: true });
      return tail(`${r.stdout}${r.stderr}`, n);
    },
    remove: (name) => must('docker', ['rm', '-f', name], { allowFail: true }),
  };
}

/** pid → its children, from /proc. */
function childrenOf(pid) {
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push({ pid: Number(e), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** The container's first process under a `buildah run`: the first descendant that is not buildah's own. */
function containerProcess(pid) {
  const queue = [pid];
  while (queue.length) {
    for (const c of childrenOf(queue.shift())) {
      if (c.comm === 'buildah' || c.comm.startsWith('memfd:') || c.comm.startsWith('buildah')) queue.push(c.pid);
      else return c.pid;
    }
  }
  return undefined;
}

function buildahRunner() {
  const B = ['--storage-driver', 'vfs'];
  const running = new Map();
  const config = (ctr) => {
    const c = JSON.parse(must('buildah', [...B, 'inspect', '--type', 'container', ctr]).stdout).OCIv1.config;
    return { User: c.User, WorkingDir: c.WorkingDir, Cmd: c.Cmd };
  };
  const runArgs = (ctr, { env, mounts = [] }, cmd) => {
    const c = config(ctr);
    return [
      ...B,
      'run',
      '--isolation',
      'chroot',
      '--network',
      'host',
      ...(c.User ? ['--user', c.User] : []),
      ...(c.WorkingDir ? ['--workingdir', c.WorkingDir] : []),
      ...mounts.flatMap((m) => ['--volume', m]),
      ...envFlags(env),
      ctr,
      '--',
      ...(cmd.length ? cmd : c.Cmd),
    ];
  };
  return {
    kind: 'buildah',
    hasImage: (ref) => must('buildah', [...B, 'inspect', '--type', 'image', ref], { allowFail: true }).status === 0,
    once(image, { env, cmd = [], mounts = [] }) {
      const ctr = must('buildah', [...B, 'from', image]).stdout.trim();
      try {
        return must('buildah', runArgs(ctr, { env, mounts }, cmd));
      } finally {
        must('buildah', [...B, 'rm', ctr], { allowFail: true });
      }
    },
    start(name, image, { env, logFile }) {
      must('buildah', [...B, 'from', '--name', name, image]);
      const out = fs.openSync(logFile, 'w');
      const child = spawn('buildah', runArgs(name, { env }, []), { stdio: ['ignore', out, out] });
      const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
      running.set(name, { child, exited, logFile });
    },
    async stop(name) {
      const r = running.get(name);
      const pid = containerProcess(r.child.pid);
      if (!pid) throw new Error(`${name}: its process is not running`);
      const t = Date.now();
      process.kill(pid, 'SIGTERM');
      const code = await r.exited;
      return { code, ms: Date.now() - t };
    },
    logs: (name, n) => tail(fs.readFileSync(running.get(name).logFile, 'utf8'), n),
    remove(name) {
      const r = running.get(name);
      if (r && r.child.exitCode === null) {
        const pid = containerProcess(r.child.pid);
        if (pid) process.kill(pid, 'SIGKILL');
      }
      must('buildah', [...B, 'rm', name], { allowFail: true });
    },
  };
}

function createRunner() {
  if (spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 }).status === 0) return dockerRunner();
  if (spawnSync('buildah', ['--version'], { stdio: 'ignore' }).status === 0) return buildahRunner();
  throw new Error('neither a Docker daemon nor buildah: apt-get install -y buildah');
}

module.exports = { createRunner };
