// Makes the Node base images from Debian packages when no registry is reachable: a Debian rootfs
// by mmdebstrap (Debian 13 "trixie" ships Node 20 in its own archive), imported with
// `buildah from scratch`. Two images: the runtime base (node only) and the build base (+ npm,
// which the build upgrades to the lockfile's npm). Made once; `--rebuild-base` makes them again.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const SUITE = 'trixie';
const MIRROR = 'http://deb.debian.org/debian';
/** Docs, man pages and translations are never read in a container. */
const DPKG_EXCLUDES = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/info/*', '/usr/share/locale/*', '/usr/share/lintian/*'];

const BASES = {
  runtime: { name: 'localhost/glimpse-node-runtime:20-trixie', variant: 'essential', packages: ['nodejs', 'ca-certificates'] },
  build: { name: 'localhost/glimpse-node-build:20-trixie', variant: 'minbase', packages: ['nodejs', 'npm', 'ca-certificates'] },
};

function exists(buildah, name) {
  try {
    execFileSync(buildah.bin, [...buildah.global, 'inspect', '--type', 'image', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function make(buildah, { name, variant, packages }, log) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-base-'));
  const tar = path.join(dir, 'rootfs.tar');
  try {
    log(`base: mmdebstrap ${SUITE} (${variant}: ${packages.join(', ')}) for ${name}`);
    execFileSync(
      'mmdebstrap',
      [
        `--variant=${variant}`,
        `--include=${packages.join(',')}`,
        ...DPKG_EXCLUDES.map((p) => `--dpkgopt=path-exclude=${p}`),
        '--dpkgopt=path-include=/usr/share/doc/*/copyright',
        // The conventional "node" user (uid 1000), as in the node images; the Dockerfile runs as 1000.
        '--customize-hook=echo "node:x:1000:1000::/home/node:/bin/sh" >> "$1/etc/passwd" && echo "node:x:1000:" >> "$1/etc/group" && mkdir -p "$1/home/node" && chown 1000:1000 "$1/home/node"',
        '--customize-hook=rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*',
        SUITE,
        tar,
        MIRROR,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const ctr = execFileSync(buildah.bin, [...buildah.global, 'from', 'scratch'], { encoding: 'utf8' }).trim();
    try {
      execFileSync(buildah.bin, [...buildah.global, 'add', ctr, tar, '/'], { stdio: 'ignore' });
      execFileSync(buildah.bin, [...buildah.global, 'config', '--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '--cmd', 'node', '--label', `org.opencontainers.image.description=Debian ${SUITE} ${variant} + ${packages.join(' ')}`, ctr]);
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
  for (const base of Object.values(BASES)) {
    if (rebuild || !exists(buildah, base.name)) make(buildah, base, log);
    else log(`base: ${base.name} (already made)`);
  }
  return { NODE_IMAGE: BASES.runtime.name, NODE_BUILD_IMAGE: BASES.build.name };
}

module.exports = { ensureBases, BASES };
