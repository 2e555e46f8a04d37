#!/usr/bin/env node
// npm run images: builds the five service images and the migration image from
// deploy/docker/Dockerfile. Uses `docker build` where a Docker daemon answers; otherwise buildah
// (vfs storage, chroot isolation: no daemon, no privileges beyond root), on Node base images made
// locally from Debian packages and the project's own Node 24 build (scripts/images/base-image.js)
// unless NODE_IMAGE is given.
// Prints each image's size and build time.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');
const { ROOT } = require('./lib.js');
const { imagesEnv } = require('./images/config.js');

const HELP = `Usage: npm run images [-- options]

Builds glimpse-gateway, glimpse-playbook, glimpse-enrichment, glimpse-webhooks, glimpse-visitors and
glimpse-migrate from deploy/docker/Dockerfile, then prints their sizes and build times.

  --tag TAG          image tag (default: ${'`git rev-parse --short HEAD`'}, plus "latest")
  --worktree         build the working tree as it is (default: the commit HEAD, from git archive,
                     so the images are exactly a commit and edits during the build change nothing)
  --only a,b         build only these (gateway, playbook, enrichment, webhooks, visitors, migrate)
  --builder B        docker or buildah (default: docker if its daemon answers, else buildah)
  --rebuild-base     buildah: make the Debian base images again
  --help             this text

Environment: NODE_IMAGE / NODE_BUILD_IMAGE (base images; default: the Dockerfile's digest-pinned
node:24 bookworm-slim; with buildah and none given, Debian bookworm by mmdebstrap plus the Node 24
binary npm ci put in node_modules, the one the tests run on), NPM_CA_FILE (CA bundle for a TLS
proxy to the npm registry; default: the system bundle when NODE_EXTRA_CA_CERTS names it).`;

const IMAGES = {
  gateway: { target: 'service', args: { SERVICE: 'gateway' } },
  playbook: { target: 'service', args: { SERVICE: 'playbook' } },
  enrichment: { target: 'service', args: { SERVICE: 'enrichment' } },
  webhooks: { target: 'service', args: { SERVICE: 'webhooks' } },
  visitors: { target: 'service', args: { SERVICE: 'visitors' } },
  migrate: { target: 'migrate', args: {} },
};

function parseArgs(argv) {
  const opts = { only: Object.keys(IMAGES), builder: undefined, rebuildBase: false, tag: undefined, worktree: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') opts.help = true;
    else if (a === '--rebuild-base') opts.rebuildBase = true;
    else if (a === '--worktree') opts.worktree = true;
    else if (a === '--tag') opts.tag = argv[++i];
    else if (a === '--builder') opts.builder = argv[++i];
    else if (a === '--only')
      opts.only = String(argv[++i])
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else throw new Error(`unknown option ${a} (see --help)`);
  }
  for (const name of opts.only) if (!IMAGES[name]) throw new Error(`unknown image "${name}": one of ${Object.keys(IMAGES).join(', ')}`);
  if (opts.builder && !['docker', 'buildah'].includes(opts.builder)) throw new Error('--builder is docker or buildah');
  return opts;
}

function answers(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'ignore', timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

/** The container tool, with the global flags every call needs (buildah: vfs storage). */
function pickBuilder(wanted) {
  const docker = { kind: 'docker', bin: 'docker', global: [] };
  const buildah = { kind: 'buildah', bin: 'buildah', global: ['--storage-driver', 'vfs'] };
  if (wanted === 'docker' || (!wanted && answers('docker', ['info']))) return docker;
  if (answers('buildah', ['--version'])) return buildah;
  throw new Error('neither a Docker daemon nor buildah is available: install buildah (apt-get install -y buildah mmdebstrap) or start Docker');
}

/** The build context: the commit HEAD, unpacked from git archive (or the working tree itself). */
function buildContext(worktree) {
  if (worktree) return { dir: ROOT, done() {} };
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim();
  if (dirty) console.log('images: the working tree has uncommitted changes; building HEAD without them (--worktree to include them)');
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'glimpse-context-'));
  execFileSync('sh', ['-c', 'git archive --format=tar HEAD | tar -x -C "$1"', 'sh', dir], { cwd: ROOT });
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

function runLogged(cmd, args, logFile, cwd) {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(logFile, 'w');
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', out, out] });
    child.on('error', reject);
    child.on('exit', (code) => {
      fs.closeSync(out);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.slice(0, 3).join(' ')}… exited with ${code}; see ${logFile}:\n${tail(logFile)}`));
    });
  });
}

function tail(file, lines = 25) {
  return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

function buildArgs(builder, { target, args }, baseArgs, tags, caFile) {
  const all = { ...baseArgs, ...args };
  const common = [
    '-f',
    'deploy/docker/Dockerfile',
    '--target',
    target,
    ...Object.entries(all).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    ...tags.flatMap((t) => ['-t', t]),
  ];
  const secret = caFile ? ['--secret', `id=npm_ca,src=${caFile}`] : [];
  if (builder.kind === 'docker') return ['build', ...common, ...secret, '.'];
  return [...builder.global, 'bud', '--isolation', 'chroot', '--layers', '--network', 'host', ...common, ...secret, '.'];
}

/** Size (unpacked, as `docker images` shows it) and digest of a built image. */
function imageInfo(builder, ref) {
  if (builder.kind === 'docker') {
    const [size, id] = execFileSync('docker', ['image', 'inspect', '--format', '{{.Size}} {{.Id}}', ref], { encoding: 'utf8' }).trim().split(' ');
    return { size: human(Number(size)), digest: id };
  }
  const [img] = JSON.parse(execFileSync(builder.bin, [...builder.global, 'images', '--json', ref], { encoding: 'utf8' }));
  return { size: img.size, digest: img.digest };
}

function human(bytes) {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(0)} MB`;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(HELP);
    return;
  }
  const env = imagesEnv();
  const builder = pickBuilder(opts.builder);
  const tag = opts.tag ?? execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const started = Date.now();
  console.log(`images: building ${opts.only.join(', ')} with ${builder.kind}, tag ${tag}`);

  let baseArgs = {};
  if (env.NODE_IMAGE) baseArgs = { NODE_IMAGE: env.NODE_IMAGE, ...(env.NODE_BUILD_IMAGE ? { NODE_BUILD_IMAGE: env.NODE_BUILD_IMAGE } : {}) };
  else if (builder.kind === 'buildah') {
    const t = Date.now();
    baseArgs = require('./images/base-image.js').ensureBases(builder, { rebuild: opts.rebuildBase });
    console.log(`base images ready in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }

  const logDir = path.join(ROOT, 'artifacts', 'images');
  fs.mkdirSync(logDir, { recursive: true });
  const context = buildContext(opts.worktree);
  const rows = [];
  try {
    for (const name of opts.only) {
      const t = Date.now();
      const repo = `localhost/glimpse-${name}`;
      const tags = [`${repo}:${tag}`, `${repo}:latest`];
      const logFile = path.join(logDir, `${name}.log`);
      process.stdout.write(`  ${name}: building (log: ${path.relative(ROOT, logFile)}) … `);
      await runLogged(builder.bin, buildArgs(builder, IMAGES[name], baseArgs, tags, env.NPM_CA_FILE), logFile, context.dir);
      const seconds = (Date.now() - t) / 1000;
      const info = imageInfo(builder, tags[0]);
      console.log(`${seconds.toFixed(0)} s`);
      rows.push({ image: tags[0], ...info, seconds });
    }
  } finally {
    context.done();
  }
  console.log('\nimage                                      size      build  digest');
  for (const r of rows) console.log(`${r.image.padEnd(42)} ${String(r.size).padStart(7)}  ${r.seconds.toFixed(0).padStart(5)} s  ${r.digest}`);
  console.log(`total build time ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((err) => {
  console.error(`\nimages: ${err.message}`);
  process.exit(1);
});
