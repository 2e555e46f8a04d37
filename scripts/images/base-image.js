// Makes the Node base images when no registry is reachable: a Debian 12 "bookworm" rootfs (the
// release of the node:24-bookworm-slim images the Dockerfile pins) by mmdebstrap, plus the very
// Node 24 build the tests run on: node_modules/node-linux-<arch>/bin/node, the official build npm
// ci installed from the lockfile (package.json optionalDependencies), copied to /usr/local/bin as
// in the node images. Imported with `buildah from scratch`. Two images: the runtime base (node
// only) and the build base (+ npm, the version package.json "packageManager" names, unpacked from
// its registry tarball, which bundles its dependencies). Named after the Node version, so a new
// version makes new bases; `--rebuild-base` makes them again.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT } = require('../lib.js');

const SUITE = 'bookworm';
const MIRROR = 'http://deb.debian.org/debian';
/** Docs, man pages and translations are never read in a container. */
const DPKG_EXCLUDES = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/info/*', '/usr/share/locale/*', '/usr/share/lintian/*'];
/** What the official node binary links against besides libc (see `ldd node`); ca-certificates for TLS. */
const PACKAGES = ['libstdc++6', 'ca-certificates'];

/** The Node build npm ci installed for this machine's architecture (the images are built for it). */
function projectNode() {
  const pkgName = `node-linux-${process.arch}`;
  const dir = path.join(ROOT, 'node_modules', pkgName);
  const binary = path.join(dir, 'bin', 'node');
  if (process.platform !== 'linux' || !fs.existsSync(binary)) {
    throw new Error(
      `${path.relative(ROOT, binary)} is missing: run npm ci on Linux x64 or arm64 (package.json optionalDependencies bring Node 24), or give NODE_IMAGE`,
    );
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { binary, version };
}

/** npm's version from package.json "packageManager" (npm@x.y.z). */
function npmVersion() {
  const { packageManager } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const m = /^npm@(\d+\.\d+\.\d+)$/.exec(packageManager ?? '');
  if (!m) throw new Error(`package.json "packageManager" is not npm@x.y.z (got ${packageManager})`);
  return m[1];
}

function bases(node = projectNode()) {
  return {
    runtime: { name: `localhost/glimpse-node-runtime:${node.version}-${SUITE}`, variant: 'essential', packages: PACKAGES, npm: false, node },
    build: { name: `localhost/glimpse-node-build:${node.version}-${SUITE}`, variant: 'minbase', packages: PACKAGES, npm: true, node },
  };
}

function exists(buildah, name) {
  try {
    execFileSync(buildah.bin, [...buildah.global, 'inspect', '--type', 'image', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/** npm's registry tarball (npm pack, through the npm cache), for the build base. */
function packNpm(dir) {
  const version = npmVersion();
  const out = execFileSync('npm', ['pack', `npm@${version}`, '--silent', '--pack-destination', dir], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  return { tarball: path.join(dir, out), version };
}

function make(buildah, { name, variant, packages, npm, node }, log) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-base-'));
  const tar = path.join(dir, 'rootfs.tar');
  try {
    const hooks = [
      // The conventional "node" user (uid 1000), as in the node images; the Dockerfile runs as 1000.
      'echo "node:x:1000:1000::/home/node:/bin/sh" >> "$1/etc/passwd" && echo "node:x:1000:" >> "$1/etc/group" && mkdir -p "$1/home/node" && chown 1000:1000 "$1/home/node"',
      // Node where the node images have it.
      `mkdir -p "$1/usr/local/bin" && install -m 0755 ${shq(node.binary)} "$1/usr/local/bin/node"`,
    ];
    let npmNote = '';
    if (npm) {
      const { tarball, version } = packNpm(dir);
      npmNote = ` + npm ${version}`;
      hooks.push(
        `mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf ${shq(tarball)} -C "$1/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner` +
          ' && ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
      );
    }
    hooks.push('rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*');
    log(`base: mmdebstrap ${SUITE} (${variant}: ${packages.join(', ')}) + node ${node.version}${npmNote} for ${name}`);
    execFileSync(
      'mmdebstrap',
      [
        `--variant=${variant}`,
        `--include=${packages.join(',')}`,
        ...DPKG_EXCLUDES.map((p) => `--dpkgopt=path-exclude=${p}`),
        '--dpkgopt=path-include=/usr/share/doc/*/copyright',
        ...hooks.map((h) => `--customize-hook=${h}`),
        // The image must run what it carries.
        '--customize-hook=chroot "$1" /usr/local/bin/node --version',
        SUITE,
        tar,
        MIRROR,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const ctr = execFileSync(buildah.bin, [...buildah.global, 'from', 'scratch'], { encoding: 'utf8' }).trim();
    try {
      execFileSync(buildah.bin, [...buildah.global, 'add', ctr, tar, '/'], { stdio: 'ignore' });
      const description = `Debian ${SUITE} ${variant} + ${packages.join(' ')} + node ${node.version}${npmNote}`;
      execFileSync(buildah.bin, [
        ...buildah.global,
        'config',
        '--env',
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--env',
        `NODE_VERSION=${node.version}`,
        '--cmd',
        'node',
        '--label',
        `org.opencontainers.image.description=${description}`,
        ctr,
      ]);
      execFileSync(buildah.bin, [...buildah.global, 'commit', '--quiet', ctr, name], { stdio: 'ignore' });
    } finally {
      execFileSync(buildah.bin, [...buildah.global, 'rm', ctr], { stdio: 'ignore' });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Ensures both base images exist; returns the build args that select them. */
function ensureBases(buildah, { rebuild = false, log = console.log } = {}) {
  const all = bases();
  for (const base of Object.values(all)) {
    if (rebuild || !exists(buildah, base.name)) make(buildah, base, log);
    else log(`base: ${base.name} (already made)`);
  }
  return { NODE_IMAGE: all.runtime.name, NODE_BUILD_IMAGE: all.build.name };
}

module.exports = { ensureBases, bases, projectNode };
